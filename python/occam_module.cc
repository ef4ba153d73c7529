// occam._occam: the extension under `import occam` (python/occam/__init__.py).
// One function runs an occam command line in-process, exactly as the CLI
// does (cli/commands.h RunCommand), and returns what it printed.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "cli/commands.h"
#include "occam/report.h"

namespace py = pybind11;

PYBIND11_MODULE(_occam, m) {
  m.doc() = "occam's command runner; use the functions of the occam package";
  m.def(
      "run",
      [](const std::vector<std::string>& args) {
        occam::cli::CommandOutput output;
        {
          py::gil_scoped_release release;  // a search uses every core for seconds
          output = occam::cli::RunCommand(args);
        }
        return py::make_tuple(output.exit_code, output.out, output.err);
      },
      py::arg("args"), "Runs `occam <args...>`; returns (exit status, stdout, stderr).");
  m.def("version", &occam::OccamVersion, "occam's version");
}
