// occam: plan and simulate the training of large language models on many
// accelerators. See README.md and doc/.
#include "cli/commands.h"

int main(int argc, char** argv) { return occam::cli::RunCommandLine(argc, argv); }
