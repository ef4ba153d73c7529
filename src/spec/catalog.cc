// The built-in catalog: models, chips and cluster templates compiled in from data/.
#include <string>

#include "occam/spec.h"

namespace occam {

std::vector<std::string> CatalogModelNames() { return {}; }

Result<ModelSpec> CatalogModel(std::string_view name) {
  return NotFound("no built-in model '" + std::string(name) + "' (catalog not loaded yet)");
}

std::vector<std::string> CatalogChipKeys() { return {}; }

Result<ChipSpec> CatalogChip(std::string_view key) {
  return NotFound("no built-in chip '" + std::string(key) + "' (catalog not loaded yet)");
}

std::vector<std::string> CatalogClusterNames() { return {}; }

Result<ClusterSpec> CatalogCluster(std::string_view name, int64_t chips) {
  (void)chips;
  return NotFound("no cluster template '" + std::string(name) + "' (catalog not loaded yet)");
}

}  // namespace occam
