#include "cli/framework_io.h"

#include <cstdio>

namespace occam::cli {

Result<std::optional<Framework>> ParseEmitFlag(const std::string& value) {
  if (value.empty()) return std::optional<Framework>();
  auto f = ParseFrameworkName(value);
  if (!f) return InvalidInput("--emit: '" + value + "' is not megatron, torchtitan or maxtext");
  return std::optional<Framework>(*f);
}

namespace {

Status CheckAgrees(const std::string& flag, int64_t given, int64_t file_value,
                   const std::string& origin) {
  if (given == 0 || given == file_value) return Status::Ok();
  return InvalidInput(flag + " " + std::to_string(given) + " contradicts " + origin + " (" +
                      std::to_string(file_value) + "); drop the flag or change the file");
}

Result<ClusterSpec> ClusterFor(const FrameworkFile& file, const std::string& cluster_arg,
                               int64_t chips) {
  if (cluster_arg.empty()) {
    return InvalidInput(file.origin +
                        " does not say which cluster it runs on: give --cluster (a template "
                        "such as h100 with --chips, or a cluster file)");
  }
  OCCAM_ASSIGN_OR_RETURN(std::optional<int64_t> world, FileChips(file));
  if (world && chips > 0 && *world != chips) {
    return InvalidInput("--chips " + std::to_string(chips) + " contradicts " + file.origin +
                        ", whose parallel sizes give " + std::to_string(*world) + " ranks");
  }
  if (chips <= 0 && world) chips = *world;
  if (chips <= 0 && cluster_arg.find('/') == std::string::npos && !cluster_arg.ends_with(".yaml") &&
      !cluster_arg.ends_with(".json")) {
    return InvalidInput(file.origin +
                        " does not fix the number of ranks (the launcher sets it): give --chips");
  }
  return LoadCluster(cluster_arg, chips);
}

}  // namespace

Result<FromInputs> LoadFrom(const std::vector<std::string>& from, const std::string& model_arg,
                            const std::string& cluster_arg, int64_t chips, const JobFlags& jf,
                            std::string& notes) {
  if (from.size() != 2)
    return InvalidInput("--from takes a format and a file: --from megatron FILE");
  const auto fw = ParseFrameworkName(from[0]);
  if (!fw) return InvalidInput("--from: '" + from[0] + "' is not megatron, torchtitan or maxtext");
  OCCAM_ASSIGN_OR_RETURN(std::string text, ReadInputFile(from[1]));
  OCCAM_ASSIGN_OR_RETURN(FrameworkFile file, ParseFrameworkFile(*fw, text, from[1]));
  for (const auto& w : file.warnings) notes += "occam: warning: " + w + "\n";
  FromInputs in;
  if (!model_arg.empty()) {
    OCCAM_ASSIGN_OR_RETURN(in.model, LoadModel(model_arg));
  } else {
    OCCAM_ASSIGN_OR_RETURN(in.model, ModelFromFile(file));
  }
  OCCAM_ASSIGN_OR_RETURN(in.cluster, ClusterFor(file, cluster_arg, chips));
  OCCAM_ASSIGN_OR_RETURN(JobSpec base, BuildJob(jf));
  OCCAM_ASSIGN_OR_RETURN(ImportedLayout l, ResolveFrameworkFile(file, in.model, in.cluster, base));
  OCCAM_RETURN_IF_ERROR(CheckAgrees("--seq-len", jf.seq_len.empty() ? int64_t{0} : base.seq_len,
                                    l.job.seq_len, from[1]));
  if (!jf.global_batch_seqs.empty() || !jf.global_batch_tokens.empty()) {
    OCCAM_RETURN_IF_ERROR(
        CheckAgrees("the global batch", base.global_batch_seqs, l.job.global_batch_seqs, from[1]));
  }
  for (const auto& n : l.notes) notes += "occam: note: " + n + "\n";
  in.job = l.job;
  in.plan = l.plan;
  in.framework = *fw;
  notes += "occam: read " + from[1] + " as " + FormatPlan(in.plan) + " on " +
           std::to_string(in.cluster.num_chips) + " x " + in.cluster.chip.name + "\n";
  return in;
}

Result<std::string> BetterLayoutLine(const FromInputs& in, const Estimate& e) {
  SearchOptions o;
  o.top = 300;
  OCCAM_ASSIGN_OR_RETURN(SearchResult r, SearchLayouts(in.model, in.cluster, in.job, o));
  if (!r.best) return std::string("\nWhat would be better: no layout occam searched fits.\n");
  const double mine = e.step_time.value();
  auto line = [&](const char* what, const LayoutResult& l) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "  %s: %s, %.3f s per step (%+.1f%% throughput)\n", what,
                  FormatPlan(l.plan).c_str(), l.step_time.value(),
                  100.0 * (mine / l.step_time.value() - 1.0));
    return std::string(buf);
  };
  char head[128];
  std::snprintf(head, sizeof head, "\nWhat would be better (this layout: %.3f s per step%s):\n",
                mine, e.fits ? "" : ", does not fit");
  std::string s = head;
  s += line("best layout occam finds", *r.best);
  const std::string fw(FrameworkName(in.framework));
  for (const auto& l : r.top) {
    if (!CheckFramework(in.framework, in.model, in.cluster, in.job, l.plan).empty()) continue;
    s += line(("fastest " + fw + " can express").c_str(), l);
    return s;
  }
  return s + "  (none of the " + std::to_string(r.top.size()) +
         " fastest layouts is expressible in " + fw + ")\n";
}

}  // namespace occam::cli
