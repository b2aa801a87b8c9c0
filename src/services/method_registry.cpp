#include "logz/services/method_list.hpp"
#include "logz/services/methods.hpp"

namespace logz {

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> methods = [] {
    std::vector<MethodEntry> entries;
    RunMethods::for_each([&]<class M>(std::type_identity<M>) {
      entries.push_back({M::kId, M::kSummary, M::kDocs, M::kCheckpoints});
    });
    return entries;
  }();
  return methods;
}

const MethodEntry& method_entry(RunMethod method) {
  return method_registry()[static_cast<std::size_t>(method)];
}

}  // namespace logz
