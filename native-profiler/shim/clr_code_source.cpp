#include "shim/clr_code_source.h"

namespace clrscope {
namespace {
// A method has a handful of bodies (tiers, ReJIT versions); maps have a row per IL statement.
constexpr clr::ULONG32 kMaxStarts = 64;
constexpr clr::ULONG32 kMaxRows = 1u << 16;
}  // namespace

bool ClrCodeSource::code_starts(uint64_t function, uint64_t rejit, std::vector<uintptr_t>* out) {
  clr::UINT_PTR starts[kMaxStarts];
  clr::ULONG32 n = 0;
  if (clr::SUCCEEDED(info_->GetNativeCodeStartAddresses(function, rejit, kMaxStarts, &n, starts))) {
    for (clr::ULONG32 i = 0; i < n && i < kMaxStarts; ++i) out->push_back(starts[i]);
  }
  if (!out->empty()) return true;
  // Code the runtime keeps no version list for (ReadyToRun code before any rejit): its one body.
  clr::COR_PRF_CODE_INFO info[2];
  clr::ULONG32 count = 0;
  if (clr::FAILED(info_->GetCodeInfo2(function, 2, &count, info)) || count == 0) return false;
  out->push_back(info[0].startAddress);
  return true;
}

bool ClrCodeSource::code_ranges(uintptr_t start, std::vector<CodeRange>* out) {
  clr::COR_PRF_CODE_INFO info[2];
  clr::ULONG32 count = 0;
  if (clr::FAILED(info_->GetCodeInfo4(start, 2, &count, info))) return false;
  for (clr::ULONG32 i = 0; i < count && i < 2; ++i) out->push_back(CodeRange{info[i].startAddress, info[i].size});
  return true;
}

bool ClrCodeSource::il_map(uintptr_t start, std::vector<IlMapRow>* out) {
  clr::ULONG32 n = 0;
  if (clr::FAILED(info_->GetILToNativeMapping3(start, 0, &n, nullptr)) || n == 0) return false;
  if (n > kMaxRows) n = kMaxRows;
  std::vector<clr::COR_DEBUG_IL_TO_NATIVE_MAP> rows(n);
  clr::ULONG32 got = 0;
  if (clr::FAILED(info_->GetILToNativeMapping3(start, n, &got, rows.data()))) return false;
  if (got > n) got = n;
  out->reserve(got);
  for (clr::ULONG32 i = 0; i < got; ++i) {
    out->push_back(IlMapRow{rows[i].ilOffset, rows[i].nativeStartOffset, rows[i].nativeEndOffset});
  }
  return true;
}

}  // namespace clrscope
