#pragma once
// The handful of Windows/PAL types the CLR profiling interfaces are written in, at the widths the
// runtime itself uses: CoreCLR's PAL on Unix (LP64, where LONG/ULONG/DWORD stay 32-bit and WCHAR
// is UTF-16 char16_t) and the Windows SDK under _WIN32. We never include a runtime or Windows
// header; everything sits in namespace clr so a Windows build can still include <windows.h>.
//
// Windows defines several of these names as macros (S_OK, E_FAIL, SUCCEEDED, REFIID, ...). Where
// that can happen our definition is skipped when the macro already exists; the macro then expands
// to the same value, so write those names unqualified (S_OK, not clr::S_OK) in shared code.
#include <cstddef>
#include <cstdint>

// COM methods use __stdcall only on 32-bit x86; everywhere else it is the platform default.
// Our declarations use CLR_STDCALL so they never depend on who else defines STDMETHODCALLTYPE.
#if defined(_WIN32) && defined(_M_IX86)
#define CLR_STDCALL __stdcall
#elif defined(__i386__) && defined(__GNUC__)
// The PAL maps __stdcall to this attribute on 32-bit x86 Unix.
#define CLR_STDCALL __attribute__((stdcall))
#else
#define CLR_STDCALL
#endif

#ifndef STDMETHODCALLTYPE
#define STDMETHODCALLTYPE CLR_STDCALL
#endif

namespace clr {

#if defined(_WIN32)
// Windows (LLP64): long is 32-bit, so these match the SDK's typedefs exactly.
using HRESULT = long;
using LONG = long;
using ULONG = unsigned long;
using DWORD = unsigned long;
using WCHAR = wchar_t;
#else
// PAL: deliberately 32-bit even though long is 64-bit on LP64.
using HRESULT = std::int32_t;
using LONG = std::int32_t;
using ULONG = std::uint32_t;
using DWORD = std::uint32_t;
using WCHAR = char16_t;
#endif

using BOOL = int;
using INT = int;
using UINT = unsigned int;
using BYTE = std::uint8_t;
using USHORT = std::uint16_t;
using LONG32 = std::int32_t;
using ULONG32 = std::uint32_t;
using UINT8 = std::uint8_t;
using UINT32 = std::uint32_t;
using UINT64 = std::uint64_t;
using ULONGLONG = std::uint64_t;
using INT_PTR = std::intptr_t;
using UINT_PTR = std::uintptr_t;
using ULONG_PTR = std::uintptr_t;
using SIZE_T = std::size_t;
using PVOID = void*;
using HANDLE = void*;

using LPWSTR = WCHAR*;
using LPCWSTR = const WCHAR*;
using LPBYTE = BYTE*;
using LPCBYTE = const BYTE*;

// Same layout on every platform: 16 bytes, Data1..3 stored in the machine's byte order.
struct GUID {
  std::uint32_t Data1;
  std::uint16_t Data2;
  std::uint16_t Data3;
  std::uint8_t Data4[8];
};

constexpr bool operator==(const GUID& a, const GUID& b) noexcept {
  if (a.Data1 != b.Data1 || a.Data2 != b.Data2 || a.Data3 != b.Data3) return false;
  for (int i = 0; i < 8; ++i) {
    if (a.Data4[i] != b.Data4[i]) return false;
  }
  return true;
}
constexpr bool operator!=(const GUID& a, const GUID& b) noexcept { return !(a == b); }

using IID = GUID;
using CLSID = GUID;
using LPCGUID = const GUID*;
// In C++ Windows headers these are macros spelling "const IID &"; inside namespace clr that
// resolves to our IID, so declarations written with REFIID mean the same thing either way.
#ifndef REFGUID
using REFGUID = const GUID&;
#endif
#ifndef REFIID
using REFIID = const IID&;
#endif
#ifndef REFCLSID
using REFCLSID = const CLSID&;
#endif

namespace detail {
// Deliberately not constexpr: reaching it while evaluating a constant makes the build fail,
// which is how a mistyped GUID literal is reported.
inline std::uint32_t invalid_guid_literal() { return 0; }

constexpr std::uint32_t hex_digit(char c) {
  return (c >= '0' && c <= '9')   ? static_cast<std::uint32_t>(c - '0')
         : (c >= 'a' && c <= 'f') ? static_cast<std::uint32_t>(c - 'a' + 10)
         : (c >= 'A' && c <= 'F') ? static_cast<std::uint32_t>(c - 'A' + 10)
                                  : invalid_guid_literal();
}

constexpr std::uint32_t hex_field(const char* s, int digits) {
  std::uint32_t v = 0;
  for (int i = 0; i < digits; ++i) v = (v << 4) | hex_digit(s[i]);
  return v;
}
}  // namespace detail

// Builds a GUID from its registry form "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" so that IIDs in our
// headers can be compared by eye with the IDL they come from.
constexpr GUID guid_from_string(const char (&s)[37]) {
  if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') detail::invalid_guid_literal();
  GUID g{};
  g.Data1 = detail::hex_field(s, 8);
  g.Data2 = static_cast<std::uint16_t>(detail::hex_field(s + 9, 4));
  g.Data3 = static_cast<std::uint16_t>(detail::hex_field(s + 14, 4));
  g.Data4[0] = static_cast<std::uint8_t>(detail::hex_field(s + 19, 2));
  g.Data4[1] = static_cast<std::uint8_t>(detail::hex_field(s + 21, 2));
  for (int i = 0; i < 6; ++i) {
    g.Data4[2 + i] = static_cast<std::uint8_t>(detail::hex_field(s + 24 + 2 * i, 2));
  }
  return g;
}

// HRESULTs are written as their unsigned bit patterns, the form they take in logs.
constexpr HRESULT hresult_from_bits(std::uint32_t bits) noexcept {
  return static_cast<HRESULT>(bits);
}

// Parenthesised names so a SUCCEEDED/FAILED macro from winerror.h cannot rewrite the definitions.
constexpr bool(SUCCEEDED)(HRESULT hr) noexcept { return hr >= 0; }
constexpr bool(FAILED)(HRESULT hr) noexcept { return hr < 0; }

// Generic COM results; winerror.h (include guard _WINERROR_) defines the same values as macros.
#if !defined(_WINERROR_)
inline constexpr HRESULT S_OK = 0;
inline constexpr HRESULT S_FALSE = 1;
inline constexpr HRESULT E_NOTIMPL = hresult_from_bits(0x80004001u);
inline constexpr HRESULT E_NOINTERFACE = hresult_from_bits(0x80004002u);
inline constexpr HRESULT E_POINTER = hresult_from_bits(0x80004003u);
inline constexpr HRESULT E_FAIL = hresult_from_bits(0x80004005u);
inline constexpr HRESULT E_UNEXPECTED = hresult_from_bits(0x8000FFFFu);
inline constexpr HRESULT E_OUTOFMEMORY = hresult_from_bits(0x8007000Eu);
inline constexpr HRESULT E_INVALIDARG = hresult_from_bits(0x80070057u);
inline constexpr HRESULT CLASS_E_NOAGGREGATION = hresult_from_bits(0x80040110u);
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = hresult_from_bits(0x80040111u);
#endif

// Profiling API results (facility URT, 0x8013xxxx); the runtime's corerror.h (include guard
// __COMMON_LANGUAGE_RUNTIME_HRESULTS__) defines them as macros. The full CORPROF_E set.
#if !defined(__COMMON_LANGUAGE_RUNTIME_HRESULTS__)
inline constexpr HRESULT CORPROF_E_FUNCTION_NOT_COMPILED = hresult_from_bits(0x80131350u);
inline constexpr HRESULT CORPROF_E_DATAINCOMPLETE = hresult_from_bits(0x80131351u);
inline constexpr HRESULT CORPROF_E_FUNCTION_NOT_IL = hresult_from_bits(0x80131354u);
inline constexpr HRESULT CORPROF_E_NOT_MANAGED_THREAD = hresult_from_bits(0x80131355u);
inline constexpr HRESULT CORPROF_E_CALL_ONLY_FROM_INIT = hresult_from_bits(0x80131356u);
inline constexpr HRESULT CORPROF_E_NOT_YET_AVAILABLE = hresult_from_bits(0x8013135Bu);
inline constexpr HRESULT CORPROF_E_TYPE_IS_PARAMETERIZED = hresult_from_bits(0x8013135Cu);
inline constexpr HRESULT CORPROF_E_FUNCTION_IS_PARAMETERIZED = hresult_from_bits(0x8013135Du);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_INVALID_TGT_THREAD =
    hresult_from_bits(0x8013135Eu);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_UNMANAGED_CTX = hresult_from_bits(0x8013135Fu);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_UNSAFE = hresult_from_bits(0x80131360u);
inline constexpr HRESULT CORPROF_E_STACKSNAPSHOT_ABORTED = hresult_from_bits(0x80131361u);
inline constexpr HRESULT CORPROF_E_LITERALS_HAVE_NO_ADDRESS = hresult_from_bits(0x80131362u);
inline constexpr HRESULT CORPROF_E_UNSUPPORTED_CALL_SEQUENCE = hresult_from_bits(0x80131363u);
inline constexpr HRESULT CORPROF_E_ASYNCHRONOUS_UNSAFE = hresult_from_bits(0x80131364u);
inline constexpr HRESULT CORPROF_E_CLASSID_IS_ARRAY = hresult_from_bits(0x80131365u);
inline constexpr HRESULT CORPROF_E_CLASSID_IS_COMPOSITE = hresult_from_bits(0x80131366u);
inline constexpr HRESULT CORPROF_E_PROFILER_DETACHING = hresult_from_bits(0x80131367u);
inline constexpr HRESULT CORPROF_E_PROFILER_NOT_ATTACHABLE = hresult_from_bits(0x80131368u);
inline constexpr HRESULT CORPROF_E_UNRECOGNIZED_PIPE_MSG_FORMAT = hresult_from_bits(0x80131369u);
inline constexpr HRESULT CORPROF_E_PROFILER_ALREADY_ACTIVE = hresult_from_bits(0x8013136Au);
inline constexpr HRESULT CORPROF_E_PROFILEE_INCOMPATIBLE_WITH_TRIGGER =
    hresult_from_bits(0x8013136Bu);
inline constexpr HRESULT CORPROF_E_IPC_FAILED = hresult_from_bits(0x8013136Cu);
inline constexpr HRESULT CORPROF_E_PROFILEE_PROCESS_NOT_FOUND = hresult_from_bits(0x8013136Du);
inline constexpr HRESULT CORPROF_E_CALLBACK3_REQUIRED = hresult_from_bits(0x8013136Eu);
inline constexpr HRESULT CORPROF_E_UNSUPPORTED_FOR_ATTACHING_PROFILER =
    hresult_from_bits(0x8013136Fu);
inline constexpr HRESULT CORPROF_E_IRREVERSIBLE_INSTRUMENTATION_PRESENT =
    hresult_from_bits(0x80131370u);
inline constexpr HRESULT CORPROF_E_RUNTIME_UNINITIALIZED = hresult_from_bits(0x80131371u);
inline constexpr HRESULT CORPROF_E_IMMUTABLE_FLAGS_SET = hresult_from_bits(0x80131372u);
inline constexpr HRESULT CORPROF_E_PROFILER_NOT_YET_INITIALIZED = hresult_from_bits(0x80131373u);
inline constexpr HRESULT CORPROF_E_INCONSISTENT_WITH_FLAGS = hresult_from_bits(0x80131374u);
inline constexpr HRESULT CORPROF_E_PROFILER_CANCEL_ACTIVATION = hresult_from_bits(0x80131375u);
inline constexpr HRESULT CORPROF_E_CONCURRENT_GC_NOT_PROFILABLE = hresult_from_bits(0x80131376u);
inline constexpr HRESULT CORPROF_E_DEBUGGING_DISABLED = hresult_from_bits(0x80131378u);
inline constexpr HRESULT CORPROF_E_TIMEOUT_WAITING_FOR_CONCURRENT_GC =
    hresult_from_bits(0x80131379u);
inline constexpr HRESULT CORPROF_E_MODULE_IS_DYNAMIC = hresult_from_bits(0x8013137Au);
inline constexpr HRESULT CORPROF_E_CALLBACK4_REQUIRED = hresult_from_bits(0x8013137Bu);
inline constexpr HRESULT CORPROF_E_REJIT_NOT_ENABLED = hresult_from_bits(0x8013137Cu);
inline constexpr HRESULT CORPROF_E_FUNCTION_IS_COLLECTIBLE = hresult_from_bits(0x8013137Eu);
inline constexpr HRESULT CORPROF_E_CALLBACK6_REQUIRED = hresult_from_bits(0x80131380u);
inline constexpr HRESULT CORPROF_E_CALLBACK7_REQUIRED = hresult_from_bits(0x80131382u);
inline constexpr HRESULT CORPROF_E_REJIT_INLINING_DISABLED = hresult_from_bits(0x80131383u);
inline constexpr HRESULT CORPROF_E_SUSPENSION_IN_PROGRESS = hresult_from_bits(0x80131388u);
inline constexpr HRESULT CORPROF_E_NOT_GC_OBJECT = hresult_from_bits(0x80131389u);
// Metadata: a name did not fit the caller's buffer and was cut (a success code).
inline constexpr HRESULT CLDB_S_TRUNCATION = hresult_from_bits(0x00131106u);
#endif

}  // namespace clr
