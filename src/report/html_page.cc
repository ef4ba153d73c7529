#include "report/html_page.h"

#include <fmt/format.h>

#include "report/svg_chart.h"

#ifndef OCCAM_VERSION
#error "OCCAM_VERSION must be defined by the build (src/report/CMakeLists.txt)"
#endif

namespace occam {

std::string OccamVersion() { return OCCAM_VERSION; }

namespace report_internal {
namespace {

// System fonts only: nothing is fetched.
constexpr const char* kCss = R"css(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 820px; color: #111; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
pre.inputs { background: #f3f3f3; padding: 0.6em; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.6em 0; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; }
td.num { text-align: right; }
p.caption { color: #333; font-size: 0.9em; }
svg.chart { display: block; margin: 0.6em 0; font-size: 11px; }
svg.chart .title { font-size: 13px; font-weight: bold; }
svg.chart .axes line { stroke: #000; }
svg.chart .axes line.grid { stroke: #ddd; }
svg.chart .label { font-size: 12px; }
svg.chart .overflow { font-weight: bold; fill: #000; }
svg.chart .lane { font-size: 9px; }
)css";

// Long layouts ("tp=2,cp=2,pp=1,...") may wrap after a comma.
std::string BreakAfterCommas(const std::string& escaped) {
  std::string out;
  for (char c : escaped) out += c == ',' ? std::string(",<wbr/>") : std::string(1, c);
  return out;
}

}  // namespace

std::string HtmlPage(const std::string& title, const HtmlInputs& inputs, const std::string& body) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  s += "<title>" + XmlEscape(title) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n";
  s += "<h1>" + XmlEscape(title) + "</h1>\n";
  s += "<p>Inputs (run this to reproduce the page):</p>\n<pre class=\"inputs\">" +
       XmlEscape(inputs.command_line) + "</pre>\n";
  s += "<p class=\"version\">occam " + XmlEscape(OccamVersion()) + "</p>\n";
  return s + body + "</body>\n</html>\n";
}

std::string HtmlTable(const std::vector<std::string>& header,
                      const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table>\n<tr>";
  for (const auto& h : header) s += "<th>" + XmlEscape(h) + "</th>";
  s += "</tr>\n";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const auto& cell : row) s += "<td>" + BreakAfterCommas(XmlEscape(cell)) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

std::string HtmlSection(const std::string& heading, const std::string& caption,
                        const std::string& content) {
  return fmt::format("<section>\n<h2>{}</h2>\n<p class=\"caption\">{}</p>\n{}</section>\n",
                     XmlEscape(heading), XmlEscape(caption), content);
}

}  // namespace report_internal
}  // namespace occam
