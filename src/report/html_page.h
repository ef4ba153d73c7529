// The page around the charts of the HTML reports: head with inline CSS, the
// inputs and version block, tables. Output is HTML5 that is also well-formed
// XML (every element closed, no named entities but XML's own), so tests can
// parse a whole report with an XML parser.
#pragma once

#include <string>
#include <vector>

#include "occam/report.h"

namespace occam::report_internal {

// A whole document: <h1>title</h1>, the inputs block, then `body`.
std::string HtmlPage(const std::string& title, const HtmlInputs& inputs, const std::string& body);

// <table> with a header row; cells are escaped.
std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows);

// <section> with a heading, a one-paragraph caption and content.
std::string HtmlSection(const std::string& heading, const std::string& caption,
                        const std::string& content);

}  // namespace occam::report_internal
