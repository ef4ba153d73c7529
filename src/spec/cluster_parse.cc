// occam's cluster and job formats (YAML/JSON) and their validation.
#include <string>

#include "occam/spec.h"

namespace occam {

Result<ClusterSpec> ParseCluster(std::string_view text, std::string_view origin) {
  (void)text;
  return Internal(std::string(origin) + ": cluster parsing is not implemented yet");
}

Result<JobSpec> ParseJob(std::string_view text, std::string_view origin) {
  (void)text;
  return Internal(std::string(origin) + ": job parsing is not implemented yet");
}

Status ValidateCluster(const ClusterSpec& cluster, std::string_view origin) {
  (void)cluster;
  (void)origin;
  return Status::Ok();
}

Status ValidateJob(const JobSpec& job, std::string_view origin) {
  (void)job;
  (void)origin;
  return Status::Ok();
}

}  // namespace occam
