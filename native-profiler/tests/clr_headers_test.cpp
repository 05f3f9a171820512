// Compile-time and run-time checks of our own CLR interface declarations (include/clr/).
//
// The runtime calls into the profiler, and we call into the runtime, purely by vtable slot, so
// a missing, extra or swapped method shifts every slot after it and crashes at run time. The
// expected slot of every method below is a literal taken from the public MIDL output of
// dotnet/runtime (src/coreclr/pal/prebuilt/inc/corprof.h, whose C vtable structs list every
// method of each interface, inherited ones included) and from src/coreclr/inc/cor.h for the
// metadata interfaces. The struct layouts and IIDs are checked against the same sources.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "clr/corprof.h"
#include "clr/metadata.h"
#include "clr/metadata_emit.h"
#include "clr/pal_types.h"
#include "clr/unknown.h"

using namespace clr;

namespace {

// ---- Reading a virtual method's slot from a pointer to member (Itanium C++ ABI only). ----
// There a pointer to a virtual member function is {ptr, adj}: on x86-64 ptr holds
// 1 + slot * sizeof(void*); on ARM the "virtual" bit lives in adj and ptr holds the byte offset.
#if defined(__GXX_ABI_VERSION)
constexpr bool kItaniumAbi = true;

template <typename Pmf>
long vtable_slot(Pmf pmf) {
  static_assert(std::is_member_function_pointer<Pmf>::value, "needs a pointer to member function");
  struct ItaniumPmf {
    std::uintptr_t ptr;
    std::ptrdiff_t adj;
  };
  static_assert(sizeof(Pmf) == sizeof(ItaniumPmf), "unexpected member pointer representation");
  ItaniumPmf rep;
  std::memcpy(&rep, &pmf, sizeof rep);
#if defined(__arm__) || defined(__aarch64__)
  if ((rep.adj & 1) == 0) return -1;  // not virtual
  return static_cast<long>(rep.ptr / sizeof(void*));
#else
  if ((rep.ptr & 1) == 0) return -1;  // not virtual
  return static_cast<long>((rep.ptr - 1) / sizeof(void*));
#endif
}
#else
constexpr bool kItaniumAbi = false;
template <typename Pmf>
long vtable_slot(Pmf) {
  return -1;
}
#endif

#define SKIP_UNLESS_ITANIUM() \
  if (!kItaniumAbi) GTEST_SKIP() << "slot decoding needs the Itanium C++ ABI"

#define EXPECT_SLOT(Iface, Method, n) \
  EXPECT_EQ(vtable_slot(&Iface::Method), (n)) << #Iface "::" #Method

// One more virtual method after everything an interface declares: its slot is the interface's
// total method count, which is what catches an extra method at the very end.
template <typename I>
struct EndProbe : I {
  virtual void clrscope_end_probe() = 0;
};

#define EXPECT_TOTAL(Iface, n) \
  EXPECT_EQ(vtable_slot(&EndProbe<Iface>::clrscope_end_probe), (n)) << #Iface " method count"

}  // namespace

// ---- Basic types, for this platform (Linux x64 PAL; Windows LLP64). ----

TEST(ClrTypes, WidthsMatchThePal) {
  EXPECT_EQ(sizeof(WCHAR), 2u);
  EXPECT_EQ(sizeof(HRESULT), 4u);
  EXPECT_EQ(sizeof(BOOL), 4u);
  EXPECT_EQ(sizeof(LONG), 4u);
  EXPECT_EQ(sizeof(ULONG), 4u);
  EXPECT_EQ(sizeof(DWORD), 4u);
  EXPECT_EQ(sizeof(ULONG32), 4u);
  EXPECT_EQ(sizeof(USHORT), 2u);
  EXPECT_EQ(sizeof(BYTE), 1u);
  EXPECT_EQ(sizeof(ULONGLONG), 8u);
  EXPECT_EQ(sizeof(UINT_PTR), sizeof(void*));
  EXPECT_EQ(sizeof(SIZE_T), sizeof(void*));
  EXPECT_EQ(sizeof(mdToken), 4u);
  EXPECT_EQ(sizeof(GUID), 16u);
  EXPECT_TRUE(std::is_signed<HRESULT>::value);
#if !defined(_WIN32)
  EXPECT_TRUE((std::is_same<WCHAR, char16_t>::value));
#endif
}

TEST(ClrTypes, StructLayouts64) {
  if (sizeof(void*) != 8) GTEST_SKIP() << "64-bit layouts";
  EXPECT_EQ(sizeof(COR_PRF_CODE_INFO), 16u);
  EXPECT_EQ(offsetof(COR_PRF_CODE_INFO, startAddress), 0u);
  EXPECT_EQ(offsetof(COR_PRF_CODE_INFO, size), 8u);

  EXPECT_EQ(sizeof(COR_PRF_GC_GENERATION_RANGE), 32u);
  EXPECT_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, generation), 0u);
  EXPECT_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeStart), 8u);
  EXPECT_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeLength), 16u);
  EXPECT_EQ(offsetof(COR_PRF_GC_GENERATION_RANGE, rangeLengthReserved), 24u);

  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG), 32u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, providerName), 0u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, keywords), 8u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, loggingLevel), 16u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, filterData), 24u);

  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC), 16u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PARAM_DESC, type), 0u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PARAM_DESC, elementType), 4u);
  EXPECT_EQ(offsetof(COR_PRF_EVENTPIPE_PARAM_DESC, name), 8u);

  EXPECT_EQ(sizeof(COR_PRF_EVENT_DATA), 16u);
  EXPECT_EQ(offsetof(COR_PRF_EVENT_DATA, ptr), 0u);
  EXPECT_EQ(offsetof(COR_PRF_EVENT_DATA, size), 8u);
  EXPECT_EQ(offsetof(COR_PRF_EVENT_DATA, reserved), 12u);

  EXPECT_EQ(sizeof(COR_PRF_EX_CLAUSE_INFO), 32u);
  EXPECT_EQ(offsetof(COR_PRF_EX_CLAUSE_INFO, programCounter), 8u);
  EXPECT_EQ(sizeof(COR_PRF_NONGC_HEAP_RANGE), 24u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION), 16u);
  EXPECT_EQ(sizeof(COR_PRF_METHOD), 16u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE), 16u);
  EXPECT_EQ(sizeof(COR_DEBUG_IL_TO_NATIVE_MAP), 12u);
  EXPECT_EQ(sizeof(COR_IL_MAP), 12u);
  EXPECT_EQ(sizeof(COR_FIELD_OFFSET), 8u);
  EXPECT_EQ(sizeof(FunctionIDOrClientID), 8u);

  EXPECT_EQ(offsetof(GUID, Data2), 4u);
  EXPECT_EQ(offsetof(GUID, Data3), 6u);
  EXPECT_EQ(offsetof(GUID, Data4), 8u);

  // Field widths too: a 4-byte field in an 8-byte slot keeps size and offsets intact.
  EXPECT_EQ(sizeof(COR_PRF_CODE_INFO::size), 8u);
  EXPECT_EQ(sizeof(COR_PRF_GC_GENERATION_RANGE::rangeLength), 8u);
  EXPECT_EQ(sizeof(COR_PRF_GC_GENERATION_RANGE::rangeLengthReserved), 8u);
  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG::keywords), 8u);
  EXPECT_EQ(sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG::loggingLevel), 4u);
  EXPECT_EQ(sizeof(COR_PRF_EVENT_DATA::ptr), 8u);
  EXPECT_EQ(sizeof(COR_PRF_EX_CLAUSE_INFO::shadowStackPointer), 8u);
  EXPECT_EQ(sizeof(COR_PRF_FUNCTION_ARGUMENT_RANGE::length), 4u);
  EXPECT_EQ(sizeof(COR_PRF_METHOD::methodId), 4u);
  EXPECT_EQ(sizeof(EVENTPIPE_SESSION), 8u);
  EXPECT_EQ(sizeof(EVENTPIPE_PROVIDER), 8u);
}

TEST(ClrTypes, EnumsAreFourBytes) {
  // They travel by value and inside structs, where the C enums of the runtime are 4 bytes.
  EXPECT_EQ(sizeof(COR_PRF_GC_GENERATION), 4u);
  EXPECT_EQ(sizeof(COR_PRF_GC_REASON), 4u);
  EXPECT_EQ(sizeof(COR_PRF_SUSPEND_REASON), 4u);
  EXPECT_EQ(sizeof(COR_PRF_TRANSITION_REASON), 4u);
  EXPECT_EQ(sizeof(COR_PRF_JIT_CACHE), 4u);
  EXPECT_EQ(sizeof(COR_PRF_CLAUSE_TYPE), 4u);
  EXPECT_EQ(sizeof(COR_PRF_HANDLE_TYPE), 4u);
  EXPECT_EQ(sizeof(COR_PRF_RUNTIME_TYPE), 4u);
  EXPECT_EQ(sizeof(COR_PRF_MONITOR), 4u);
  EXPECT_EQ(sizeof(CorElementType), 4u);
}

// ---- Values. ----

TEST(ClrValues, ResultCodes) {
  EXPECT_EQ(static_cast<std::uint32_t>(E_NOTIMPL), 0x80004001u);
  EXPECT_EQ(static_cast<std::uint32_t>(E_NOINTERFACE), 0x80004002u);
  EXPECT_EQ(static_cast<std::uint32_t>(E_POINTER), 0x80004003u);
  EXPECT_EQ(static_cast<std::uint32_t>(E_FAIL), 0x80004005u);
  EXPECT_EQ(static_cast<std::uint32_t>(E_OUTOFMEMORY), 0x8007000Eu);
  EXPECT_EQ(static_cast<std::uint32_t>(E_INVALIDARG), 0x80070057u);
  EXPECT_EQ(static_cast<std::uint32_t>(CLASS_E_NOAGGREGATION), 0x80040110u);
  EXPECT_EQ(static_cast<std::uint32_t>(CLASS_E_CLASSNOTAVAILABLE), 0x80040111u);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_FUNCTION_NOT_COMPILED), 0x80131350u);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_NOT_MANAGED_THREAD), 0x80131355u);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_UNSUPPORTED_CALL_SEQUENCE), 0x80131363u);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_PROFILER_DETACHING), 0x80131367u);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_PROFILER_ALREADY_ACTIVE), 0x8013136Au);
  EXPECT_EQ(static_cast<std::uint32_t>(CORPROF_E_RUNTIME_UNINITIALIZED), 0x80131371u);
  EXPECT_EQ(static_cast<std::uint32_t>(CLDB_S_TRUNCATION), 0x00131106u);
  EXPECT_TRUE(SUCCEEDED(S_OK));
  EXPECT_TRUE(SUCCEEDED(S_FALSE));
  EXPECT_TRUE(SUCCEEDED(CLDB_S_TRUNCATION));
  EXPECT_TRUE(FAILED(E_FAIL));
  EXPECT_TRUE(FAILED(CORPROF_E_PROFILER_DETACHING));
  EXPECT_FALSE(FAILED(S_OK));
}

TEST(ClrValues, EventMaskFlags) {
  EXPECT_EQ(COR_PRF_MONITOR_THREADS, 0x200u);
  EXPECT_EQ(COR_PRF_MONITOR_GC, 0x80u);
  EXPECT_EQ(COR_PRF_MONITOR_SUSPENDS, 0x10000u);
  EXPECT_EQ(COR_PRF_ENABLE_STACK_SNAPSHOT, 0x10000000u);
  EXPECT_EQ(COR_PRF_MONITOR_REMOTING_COOKIE, 0x4400u);
  EXPECT_EQ(COR_PRF_HIGH_BASIC_GC, 0x10u);
  EXPECT_EQ(COR_PRF_HIGH_MONITOR_EVENT_PIPE, 0x80u);
  EXPECT_EQ(COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH, 0xF6u);
  // Everything a sampling profiler asks for after attach must be allowed after attach.
  constexpr DWORD kAttachLow = COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS |
                               COR_PRF_MONITOR_GC | COR_PRF_MONITOR_SUSPENDS |
                               COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_ENABLE_STACK_SNAPSHOT;
  EXPECT_EQ(kAttachLow & ~static_cast<DWORD>(COR_PRF_ALLOWABLE_AFTER_ATTACH), 0u);
  EXPECT_EQ(COR_PRF_SUSPEND_FOR_GC, 1u);
  EXPECT_EQ(COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER, 6u);
  EXPECT_EQ(COR_PRF_SUSPEND_FOR_PROFILER, 9u);
  EXPECT_EQ(COR_PRF_GC_PINNED_OBJECT_HEAP, 4u);
}

TEST(ClrValues, Tokens) {
  EXPECT_EQ(TypeFromToken(0x06001234u), static_cast<std::uint32_t>(mdtMethodDef));
  EXPECT_EQ(RidFromToken(0x06001234u), 0x1234u);
  EXPECT_TRUE(IsNilToken(mdTypeDefNil));
  EXPECT_EQ(mdtTypeDef, 0x02000000u);
  EXPECT_EQ(mdtTypeRef, 0x01000000u);
  EXPECT_EQ(mdtGenericParam, 0x2a000000u);
  EXPECT_FALSE(IsTdNested(tdPublic | tdSealed));
  EXPECT_TRUE(IsTdNested(tdNestedPrivate));
  EXPECT_TRUE(IsTdNested(tdNestedFamORAssem | tdAbstract));
}

// ---- IIDs: the IDL's registry strings, parsed at compile time, against the same IIDs written
// out field by field. ----

TEST(ClrIids, FieldValues) {
  constexpr GUID callback{
      0x176FBED1, 0xA55C, 0x4796, {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
  constexpr GUID callback10{
      0xCEC5B60E, 0xC69C, 0x495F, {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};
  constexpr GUID info12{
      0x27B24CCD, 0x1CB1, 0x47C5, {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};
  constexpr GUID info15{
      0xB446462D, 0xBD22, 0x41DD, {0x87, 0x2D, 0xDC, 0x71, 0x4C, 0x49, 0xEB, 0x56}};
  constexpr GUID import{
      0x7DAC8207, 0xD3AE, 0x4C75, {0x9B, 0x67, 0x92, 0x80, 0x1A, 0x49, 0x7D, 0x44}};
  constexpr GUID unknown{
      0x00000000, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
  constexpr GUID factory{
      0x00000001, 0x0000, 0x0000, {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
  static_assert(IID_ICorProfilerCallback == callback, "IID_ICorProfilerCallback");
  static_assert(IID_ICorProfilerCallback10 == callback10, "IID_ICorProfilerCallback10");
  static_assert(IID_ICorProfilerInfo12 == info12, "IID_ICorProfilerInfo12");
  static_assert(IID_ICorProfilerInfo15 == info15, "IID_ICorProfilerInfo15");
  static_assert(IID_IMetaDataImport == import, "IID_IMetaDataImport");
  static_assert(IID_IUnknown == unknown, "IID_IUnknown");
  static_assert(IID_IClassFactory == factory, "IID_IClassFactory");
  EXPECT_TRUE(IID_ICorProfilerCallback == callback);
  EXPECT_TRUE(IID_ICorProfilerInfo15 != info12);
}

TEST(ClrIids, BytesInMemory) {
  // Data1..3 are stored in host byte order (little-endian on every target we build for),
  // Data4 as written; this is also Guid.ToByteArray() order.
  const std::uint8_t expected[16] = {0xD1, 0xBE, 0x6F, 0x17, 0x5C, 0xA5, 0x96, 0x47,
                                     0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7};
  std::uint8_t actual[16];
  std::memcpy(actual, &IID_ICorProfilerCallback, sizeof actual);
  EXPECT_EQ(std::memcmp(actual, expected, sizeof actual), 0);
}

TEST(ClrIids, AllDistinct) {
  const GUID* all[] = {&IID_ICorProfilerCallback,
                       &IID_ICorProfilerCallback2,
                       &IID_ICorProfilerCallback3,
                       &IID_ICorProfilerCallback4,
                       &IID_ICorProfilerCallback5,
                       &IID_ICorProfilerCallback6,
                       &IID_ICorProfilerCallback7,
                       &IID_ICorProfilerCallback8,
                       &IID_ICorProfilerCallback9,
                       &IID_ICorProfilerCallback10,
                       &IID_ICorProfilerCallback11,
                       &IID_ICorProfilerInfo,
                       &IID_ICorProfilerInfo2,
                       &IID_ICorProfilerInfo3,
                       &IID_ICorProfilerInfo4,
                       &IID_ICorProfilerInfo5,
                       &IID_ICorProfilerInfo6,
                       &IID_ICorProfilerInfo7,
                       &IID_ICorProfilerInfo8,
                       &IID_ICorProfilerInfo9,
                       &IID_ICorProfilerInfo10,
                       &IID_ICorProfilerInfo11,
                       &IID_ICorProfilerInfo12,
                       &IID_ICorProfilerInfo13,
                       &IID_ICorProfilerInfo14,
                       &IID_ICorProfilerInfo15,
                       &IID_ICorProfilerObjectEnum,
                       &IID_ICorProfilerFunctionEnum,
                       &IID_ICorProfilerModuleEnum,
                       &IID_ICorProfilerThreadEnum,
                       &IID_ICorProfilerMethodEnum,
                       &IID_IMethodMalloc,
                       &IID_ICorProfilerFunctionControl,
                       &IID_ICorProfilerAssemblyReferenceProvider,
                       &IID_IMetaDataImport,
                       &IID_IMetaDataImport2,
                       &IID_IUnknown,
                       &IID_IClassFactory};
  const std::size_t n = sizeof all / sizeof all[0];
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) EXPECT_FALSE(*all[i] == *all[j]) << i << " vs " << j;
  }
}

// ---- Signatures of the methods the profiler calls or implements, restated from corprof.idl and
// cor.h: a wrong parameter type here would still compile at the call site (conversions) but
// pass the wrong bits. ----

#define EXPECT_SIGNATURE(Cls, Method, ...)                                                    \
  static_assert(                                                                              \
      std::is_same<decltype(&Cls::Method), HRESULT (CLR_STDCALL Cls::*)(__VA_ARGS__)>::value, \
      #Cls "::" #Method)

EXPECT_SIGNATURE(ICorProfilerCallback, Initialize, IUnknown*);
EXPECT_SIGNATURE(ICorProfilerCallback, ThreadCreated, ThreadID);
EXPECT_SIGNATURE(ICorProfilerCallback, ThreadAssignedToOSThread, ThreadID, DWORD);
EXPECT_SIGNATURE(ICorProfilerCallback, RuntimeSuspendStarted, COR_PRF_SUSPEND_REASON);
EXPECT_SIGNATURE(ICorProfilerCallback, ExceptionThrown, ObjectID);
EXPECT_SIGNATURE(ICorProfilerCallback2, ThreadNameChanged, ThreadID, ULONG, WCHAR*);
EXPECT_SIGNATURE(ICorProfilerCallback2, GarbageCollectionStarted, int, BOOL*, COR_PRF_GC_REASON);
EXPECT_SIGNATURE(ICorProfilerCallback3, InitializeForAttach, IUnknown*, void*, UINT);
EXPECT_SIGNATURE(ICorProfilerCallback10, EventPipeEventDelivered, EVENTPIPE_PROVIDER, DWORD, DWORD,
                 ULONG, LPCBYTE, ULONG, LPCBYTE, LPCGUID, LPCGUID, ThreadID, ULONG, UINT_PTR*);
EXPECT_SIGNATURE(ICorProfilerCallback10, EventPipeProviderCreated, EVENTPIPE_PROVIDER);
EXPECT_SIGNATURE(ICorProfilerCallback11, LoadAsNotificationOnly, BOOL*);
EXPECT_SIGNATURE(IClassFactory, CreateInstance, IUnknown*, REFIID, void**);

EXPECT_SIGNATURE(ICorProfilerInfo, GetFunctionFromIP, LPCBYTE, FunctionID*);
EXPECT_SIGNATURE(ICorProfilerInfo, GetThreadInfo, ThreadID, DWORD*);
EXPECT_SIGNATURE(ICorProfilerInfo, GetCurrentThreadID, ThreadID*);
EXPECT_SIGNATURE(ICorProfilerInfo, SetEventMask, DWORD);
EXPECT_SIGNATURE(ICorProfilerInfo, GetModuleInfo, ModuleID, LPCBYTE*, ULONG, ULONG*, WCHAR*,
                 AssemblyID*);
EXPECT_SIGNATURE(ICorProfilerInfo, GetModuleMetaData, ModuleID, DWORD, REFIID, IUnknown**);
EXPECT_SIGNATURE(ICorProfilerInfo2, GetFunctionInfo2, FunctionID, COR_PRF_FRAME_INFO, ClassID*,
                 ModuleID*, mdToken*, ULONG32, ULONG32*, ClassID*);
EXPECT_SIGNATURE(ICorProfilerInfo2, GetCodeInfo2, FunctionID, ULONG32, ULONG32*,
                 COR_PRF_CODE_INFO*);
EXPECT_SIGNATURE(ICorProfilerInfo2, GetClassIDInfo2, ClassID, ModuleID*, mdTypeDef*, ClassID*,
                 ULONG32, ULONG32*, ClassID*);
EXPECT_SIGNATURE(ICorProfilerInfo3, RequestProfilerDetach, DWORD);
EXPECT_SIGNATURE(ICorProfilerInfo3, GetRuntimeInformation, USHORT*, COR_PRF_RUNTIME_TYPE*, USHORT*,
                 USHORT*, USHORT*, USHORT*, ULONG, ULONG*, WCHAR*);
EXPECT_SIGNATURE(ICorProfilerInfo5, GetEventMask2, DWORD*, DWORD*);
EXPECT_SIGNATURE(ICorProfilerInfo5, SetEventMask2, DWORD, DWORD);
EXPECT_SIGNATURE(ICorProfilerInfo8, GetFunctionFromIP3, LPCBYTE, FunctionID*, ReJITID*);
EXPECT_SIGNATURE(ICorProfilerInfo9, GetCodeInfo4, UINT_PTR, ULONG32, ULONG32*, COR_PRF_CODE_INFO*);
static_assert(std::is_same<decltype(&ICorProfilerInfo10::SuspendRuntime),
                           HRESULT (CLR_STDCALL ICorProfilerInfo10::*)()>::value,
              "ICorProfilerInfo10::SuspendRuntime");
EXPECT_SIGNATURE(ICorProfilerInfo12, EventPipeStartSession, UINT32,
                 COR_PRF_EVENTPIPE_PROVIDER_CONFIG*, BOOL, EVENTPIPE_SESSION*);
EXPECT_SIGNATURE(ICorProfilerInfo12, EventPipeAddProviderToSession, EVENTPIPE_SESSION,
                 COR_PRF_EVENTPIPE_PROVIDER_CONFIG);
EXPECT_SIGNATURE(ICorProfilerInfo12, EventPipeStopSession, EVENTPIPE_SESSION);

EXPECT_SIGNATURE(IMetaDataImport, GetScopeProps, LPWSTR, ULONG, ULONG*, GUID*);
EXPECT_SIGNATURE(IMetaDataImport, GetTypeDefProps, mdTypeDef, LPWSTR, ULONG, ULONG*, DWORD*,
                 mdToken*);
EXPECT_SIGNATURE(IMetaDataImport, GetTypeRefProps, mdTypeRef, mdToken*, LPWSTR, ULONG, ULONG*);
EXPECT_SIGNATURE(IMetaDataImport, GetMethodProps, mdMethodDef, mdTypeDef*, LPWSTR, ULONG, ULONG*,
                 DWORD*, PCCOR_SIGNATURE*, ULONG*, ULONG*, DWORD*);
EXPECT_SIGNATURE(IMetaDataImport, GetNestedClassProps, mdTypeDef, mdTypeDef*);
EXPECT_SIGNATURE(IMetaDataImport2, EnumGenericParams, HCORENUM*, mdToken, mdGenericParam*, ULONG,
                 ULONG*);
EXPECT_SIGNATURE(IMetaDataImport2, GetGenericParamProps, mdGenericParam, ULONG*, DWORD*, mdToken*,
                 DWORD*, LPWSTR, ULONG, ULONG*);
static_assert(std::is_same<decltype(&IMetaDataImport::CloseEnum),
                           void (CLR_STDCALL IMetaDataImport::*)(HCORENUM)>::value,
              "IMetaDataImport::CloseEnum");
static_assert(std::is_same<decltype(&IUnknown::Release), ULONG (CLR_STDCALL IUnknown::*)()>::value,
              "IUnknown::Release");

// ---- Vtable slots. ----

TEST(ClrVtable, SlotDecoderWorks) {
  SKIP_UNLESS_ITANIUM();
  struct Three {
    virtual void a() = 0;
    virtual void b() = 0;
    virtual void c() = 0;
  };
  EXPECT_EQ(vtable_slot(&Three::a), 0);
  EXPECT_EQ(vtable_slot(&Three::b), 1);
  EXPECT_EQ(vtable_slot(&Three::c), 2);
  EXPECT_TOTAL(Three, 3);
}

// Total slots per interface (IUnknown's three included), as counted in the prebuilt
// C vtable struct of each interface.
TEST(ClrVtable, MethodCounts) {
  SKIP_UNLESS_ITANIUM();
  EXPECT_TOTAL(IUnknown, 3);
  EXPECT_TOTAL(IClassFactory, 5);
  EXPECT_TOTAL(ICorProfilerCallback, 72);
  EXPECT_TOTAL(ICorProfilerCallback2, 80);
  EXPECT_TOTAL(ICorProfilerCallback3, 83);
  EXPECT_TOTAL(ICorProfilerCallback4, 89);
  EXPECT_TOTAL(ICorProfilerCallback5, 90);
  EXPECT_TOTAL(ICorProfilerCallback6, 91);
  EXPECT_TOTAL(ICorProfilerCallback7, 92);
  EXPECT_TOTAL(ICorProfilerCallback8, 94);
  EXPECT_TOTAL(ICorProfilerCallback9, 95);
  EXPECT_TOTAL(ICorProfilerCallback10, 97);
  EXPECT_TOTAL(ICorProfilerCallback11, 98);
  EXPECT_TOTAL(ICorProfilerInfo, 36);
  EXPECT_TOTAL(ICorProfilerInfo2, 57);
  EXPECT_TOTAL(ICorProfilerInfo3, 71);
  EXPECT_TOTAL(ICorProfilerInfo4, 81);
  EXPECT_TOTAL(ICorProfilerInfo5, 83);
  EXPECT_TOTAL(ICorProfilerInfo6, 84);
  EXPECT_TOTAL(ICorProfilerInfo7, 87);
  EXPECT_TOTAL(ICorProfilerInfo8, 90);
  EXPECT_TOTAL(ICorProfilerInfo9, 93);
  EXPECT_TOTAL(ICorProfilerInfo10, 99);
  EXPECT_TOTAL(ICorProfilerInfo11, 101);
  EXPECT_TOTAL(ICorProfilerInfo12, 108);
  EXPECT_TOTAL(ICorProfilerInfo13, 111);
  EXPECT_TOTAL(ICorProfilerInfo14, 114);
  EXPECT_TOTAL(ICorProfilerInfo15, 115);
  EXPECT_TOTAL(IMetaDataImport, 65);
  EXPECT_TOTAL(IMetaDataImport2, 73);
  EXPECT_TOTAL(ICorProfilerObjectEnum, 8);
  EXPECT_TOTAL(ICorProfilerFunctionEnum, 8);
  EXPECT_TOTAL(ICorProfilerModuleEnum, 8);
  EXPECT_TOTAL(ICorProfilerThreadEnum, 8);
  EXPECT_TOTAL(ICorProfilerMethodEnum, 8);
  EXPECT_TOTAL(IMethodMalloc, 4);
  EXPECT_TOTAL(ICorProfilerFunctionControl, 6);
  EXPECT_TOTAL(ICorProfilerAssemblyReferenceProvider, 4);
}

TEST(ClrVtable, SmallInterfaces) {
  SKIP_UNLESS_ITANIUM();
  EXPECT_SLOT(IClassFactory, CreateInstance, 3);
  EXPECT_SLOT(IClassFactory, LockServer, 4);
  EXPECT_SLOT(ICorProfilerModuleEnum, Skip, 3);
  EXPECT_SLOT(ICorProfilerModuleEnum, Next, 7);
  EXPECT_SLOT(ICorProfilerThreadEnum, GetCount, 6);
  EXPECT_SLOT(ICorProfilerThreadEnum, Next, 7);
  EXPECT_SLOT(ICorProfilerFunctionEnum, Next, 7);
  EXPECT_SLOT(ICorProfilerFunctionControl, SetILInstrumentedCodeMap, 5);
}

// The methods this profiler calls or implements, listed on their own so they are easy to find;
// the tables below repeat them among every other method.
TEST(ClrVtable, MethodsWeUse) {
  SKIP_UNLESS_ITANIUM();
  EXPECT_SLOT(ICorProfilerCallback11, Initialize, 3);
  EXPECT_SLOT(ICorProfilerCallback11, Shutdown, 4);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadCreated, 29);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadDestroyed, 30);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadAssignedToOSThread, 31);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendStarted, 42);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendFinished, 43);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendAborted, 44);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeResumeStarted, 45);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeResumeFinished, 46);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionThrown, 54);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadNameChanged, 72);
  EXPECT_SLOT(ICorProfilerCallback11, GarbageCollectionStarted, 73);
  EXPECT_SLOT(ICorProfilerCallback11, GarbageCollectionFinished, 75);
  EXPECT_SLOT(ICorProfilerCallback11, InitializeForAttach, 80);
  EXPECT_SLOT(ICorProfilerCallback11, ProfilerAttachComplete, 81);
  EXPECT_SLOT(ICorProfilerCallback11, ProfilerDetachSucceeded, 82);
  EXPECT_SLOT(ICorProfilerCallback11, EventPipeEventDelivered, 95);
  EXPECT_SLOT(ICorProfilerCallback11, EventPipeProviderCreated, 96);
  EXPECT_SLOT(ICorProfilerCallback11, LoadAsNotificationOnly, 97);

  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromIP, 7);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadInfo, 12);
  EXPECT_SLOT(ICorProfilerInfo15, GetCurrentThreadID, 13);
  EXPECT_SLOT(ICorProfilerInfo15, SetEventMask, 16);
  EXPECT_SLOT(ICorProfilerInfo15, GetModuleInfo, 20);
  EXPECT_SLOT(ICorProfilerInfo15, GetModuleMetaData, 21);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionInfo2, 38);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassIDInfo2, 41);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo2, 42);
  EXPECT_SLOT(ICorProfilerInfo15, RequestProfilerDetach, 58);
  EXPECT_SLOT(ICorProfilerInfo15, GetRuntimeInformation, 67);
  EXPECT_SLOT(ICorProfilerInfo15, GetEventMask2, 81);
  EXPECT_SLOT(ICorProfilerInfo15, SetEventMask2, 82);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromIP3, 88);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo4, 92);
  EXPECT_SLOT(ICorProfilerInfo15, SuspendRuntime, 97);
  EXPECT_SLOT(ICorProfilerInfo15, ResumeRuntime, 98);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeStartSession, 101);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeAddProviderToSession, 102);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeStopSession, 103);

  EXPECT_SLOT(IMetaDataImport2, CloseEnum, 3);
  EXPECT_SLOT(IMetaDataImport2, GetScopeProps, 10);
  EXPECT_SLOT(IMetaDataImport2, GetTypeDefProps, 12);
  EXPECT_SLOT(IMetaDataImport2, GetTypeRefProps, 14);
  EXPECT_SLOT(IMetaDataImport2, GetMethodProps, 30);
  EXPECT_SLOT(IMetaDataImport2, GetNestedClassProps, 62);
  EXPECT_SLOT(IMetaDataImport2, EnumGenericParams, 65);
  EXPECT_SLOT(IMetaDataImport2, GetGenericParamProps, 66);
}

// Every method of the three large interfaces, each at its slot.
TEST(ClrVtable, CorProfilerCallback11EveryMethod) {
  SKIP_UNLESS_ITANIUM();
  // IUnknown
  EXPECT_SLOT(ICorProfilerCallback11, QueryInterface, 0);
  EXPECT_SLOT(ICorProfilerCallback11, AddRef, 1);
  EXPECT_SLOT(ICorProfilerCallback11, Release, 2);
  // ICorProfilerCallback
  EXPECT_SLOT(ICorProfilerCallback11, Initialize, 3);
  EXPECT_SLOT(ICorProfilerCallback11, Shutdown, 4);
  EXPECT_SLOT(ICorProfilerCallback11, AppDomainCreationStarted, 5);
  EXPECT_SLOT(ICorProfilerCallback11, AppDomainCreationFinished, 6);
  EXPECT_SLOT(ICorProfilerCallback11, AppDomainShutdownStarted, 7);
  EXPECT_SLOT(ICorProfilerCallback11, AppDomainShutdownFinished, 8);
  EXPECT_SLOT(ICorProfilerCallback11, AssemblyLoadStarted, 9);
  EXPECT_SLOT(ICorProfilerCallback11, AssemblyLoadFinished, 10);
  EXPECT_SLOT(ICorProfilerCallback11, AssemblyUnloadStarted, 11);
  EXPECT_SLOT(ICorProfilerCallback11, AssemblyUnloadFinished, 12);
  EXPECT_SLOT(ICorProfilerCallback11, ModuleLoadStarted, 13);
  EXPECT_SLOT(ICorProfilerCallback11, ModuleLoadFinished, 14);
  EXPECT_SLOT(ICorProfilerCallback11, ModuleUnloadStarted, 15);
  EXPECT_SLOT(ICorProfilerCallback11, ModuleUnloadFinished, 16);
  EXPECT_SLOT(ICorProfilerCallback11, ModuleAttachedToAssembly, 17);
  EXPECT_SLOT(ICorProfilerCallback11, ClassLoadStarted, 18);
  EXPECT_SLOT(ICorProfilerCallback11, ClassLoadFinished, 19);
  EXPECT_SLOT(ICorProfilerCallback11, ClassUnloadStarted, 20);
  EXPECT_SLOT(ICorProfilerCallback11, ClassUnloadFinished, 21);
  EXPECT_SLOT(ICorProfilerCallback11, FunctionUnloadStarted, 22);
  EXPECT_SLOT(ICorProfilerCallback11, JITCompilationStarted, 23);
  EXPECT_SLOT(ICorProfilerCallback11, JITCompilationFinished, 24);
  EXPECT_SLOT(ICorProfilerCallback11, JITCachedFunctionSearchStarted, 25);
  EXPECT_SLOT(ICorProfilerCallback11, JITCachedFunctionSearchFinished, 26);
  EXPECT_SLOT(ICorProfilerCallback11, JITFunctionPitched, 27);
  EXPECT_SLOT(ICorProfilerCallback11, JITInlining, 28);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadCreated, 29);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadDestroyed, 30);
  EXPECT_SLOT(ICorProfilerCallback11, ThreadAssignedToOSThread, 31);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingClientInvocationStarted, 32);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingClientSendingMessage, 33);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingClientReceivingReply, 34);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingClientInvocationFinished, 35);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingServerReceivingMessage, 36);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingServerInvocationStarted, 37);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingServerInvocationReturned, 38);
  EXPECT_SLOT(ICorProfilerCallback11, RemotingServerSendingReply, 39);
  EXPECT_SLOT(ICorProfilerCallback11, UnmanagedToManagedTransition, 40);
  EXPECT_SLOT(ICorProfilerCallback11, ManagedToUnmanagedTransition, 41);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendStarted, 42);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendFinished, 43);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeSuspendAborted, 44);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeResumeStarted, 45);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeResumeFinished, 46);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeThreadSuspended, 47);
  EXPECT_SLOT(ICorProfilerCallback11, RuntimeThreadResumed, 48);
  EXPECT_SLOT(ICorProfilerCallback11, MovedReferences, 49);
  EXPECT_SLOT(ICorProfilerCallback11, ObjectAllocated, 50);
  EXPECT_SLOT(ICorProfilerCallback11, ObjectsAllocatedByClass, 51);
  EXPECT_SLOT(ICorProfilerCallback11, ObjectReferences, 52);
  EXPECT_SLOT(ICorProfilerCallback11, RootReferences, 53);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionThrown, 54);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionSearchFunctionEnter, 55);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionSearchFunctionLeave, 56);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionSearchFilterEnter, 57);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionSearchFilterLeave, 58);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionSearchCatcherFound, 59);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionOSHandlerEnter, 60);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionOSHandlerLeave, 61);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionUnwindFunctionEnter, 62);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionUnwindFunctionLeave, 63);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionUnwindFinallyEnter, 64);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionUnwindFinallyLeave, 65);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionCatcherEnter, 66);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionCatcherLeave, 67);
  EXPECT_SLOT(ICorProfilerCallback11, COMClassicVTableCreated, 68);
  EXPECT_SLOT(ICorProfilerCallback11, COMClassicVTableDestroyed, 69);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionCLRCatcherFound, 70);
  EXPECT_SLOT(ICorProfilerCallback11, ExceptionCLRCatcherExecute, 71);
  // ICorProfilerCallback2
  EXPECT_SLOT(ICorProfilerCallback11, ThreadNameChanged, 72);
  EXPECT_SLOT(ICorProfilerCallback11, GarbageCollectionStarted, 73);
  EXPECT_SLOT(ICorProfilerCallback11, SurvivingReferences, 74);
  EXPECT_SLOT(ICorProfilerCallback11, GarbageCollectionFinished, 75);
  EXPECT_SLOT(ICorProfilerCallback11, FinalizeableObjectQueued, 76);
  EXPECT_SLOT(ICorProfilerCallback11, RootReferences2, 77);
  EXPECT_SLOT(ICorProfilerCallback11, HandleCreated, 78);
  EXPECT_SLOT(ICorProfilerCallback11, HandleDestroyed, 79);
  // ICorProfilerCallback3
  EXPECT_SLOT(ICorProfilerCallback11, InitializeForAttach, 80);
  EXPECT_SLOT(ICorProfilerCallback11, ProfilerAttachComplete, 81);
  EXPECT_SLOT(ICorProfilerCallback11, ProfilerDetachSucceeded, 82);
  // ICorProfilerCallback4
  EXPECT_SLOT(ICorProfilerCallback11, ReJITCompilationStarted, 83);
  EXPECT_SLOT(ICorProfilerCallback11, GetReJITParameters, 84);
  EXPECT_SLOT(ICorProfilerCallback11, ReJITCompilationFinished, 85);
  EXPECT_SLOT(ICorProfilerCallback11, ReJITError, 86);
  EXPECT_SLOT(ICorProfilerCallback11, MovedReferences2, 87);
  EXPECT_SLOT(ICorProfilerCallback11, SurvivingReferences2, 88);
  // ICorProfilerCallback5
  EXPECT_SLOT(ICorProfilerCallback11, ConditionalWeakTableElementReferences, 89);
  // ICorProfilerCallback6
  EXPECT_SLOT(ICorProfilerCallback11, GetAssemblyReferences, 90);
  // ICorProfilerCallback7
  EXPECT_SLOT(ICorProfilerCallback11, ModuleInMemorySymbolsUpdated, 91);
  // ICorProfilerCallback8
  EXPECT_SLOT(ICorProfilerCallback11, DynamicMethodJITCompilationStarted, 92);
  EXPECT_SLOT(ICorProfilerCallback11, DynamicMethodJITCompilationFinished, 93);
  // ICorProfilerCallback9
  EXPECT_SLOT(ICorProfilerCallback11, DynamicMethodUnloaded, 94);
  // ICorProfilerCallback10
  EXPECT_SLOT(ICorProfilerCallback11, EventPipeEventDelivered, 95);
  EXPECT_SLOT(ICorProfilerCallback11, EventPipeProviderCreated, 96);
  // ICorProfilerCallback11
  EXPECT_SLOT(ICorProfilerCallback11, LoadAsNotificationOnly, 97);
}

TEST(ClrVtable, CorProfilerInfo15EveryMethod) {
  SKIP_UNLESS_ITANIUM();
  // IUnknown
  EXPECT_SLOT(ICorProfilerInfo15, QueryInterface, 0);
  EXPECT_SLOT(ICorProfilerInfo15, AddRef, 1);
  EXPECT_SLOT(ICorProfilerInfo15, Release, 2);
  // ICorProfilerInfo
  EXPECT_SLOT(ICorProfilerInfo15, GetClassFromObject, 3);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassFromToken, 4);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo, 5);
  EXPECT_SLOT(ICorProfilerInfo15, GetEventMask, 6);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromIP, 7);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromToken, 8);
  EXPECT_SLOT(ICorProfilerInfo15, GetHandleFromThread, 9);
  EXPECT_SLOT(ICorProfilerInfo15, GetObjectSize, 10);
  EXPECT_SLOT(ICorProfilerInfo15, IsArrayClass, 11);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadInfo, 12);
  EXPECT_SLOT(ICorProfilerInfo15, GetCurrentThreadID, 13);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassIDInfo, 14);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionInfo, 15);
  EXPECT_SLOT(ICorProfilerInfo15, SetEventMask, 16);
  EXPECT_SLOT(ICorProfilerInfo15, SetEnterLeaveFunctionHooks, 17);
  EXPECT_SLOT(ICorProfilerInfo15, SetFunctionIDMapper, 18);
  EXPECT_SLOT(ICorProfilerInfo15, GetTokenAndMetaDataFromFunction, 19);
  EXPECT_SLOT(ICorProfilerInfo15, GetModuleInfo, 20);
  EXPECT_SLOT(ICorProfilerInfo15, GetModuleMetaData, 21);
  EXPECT_SLOT(ICorProfilerInfo15, GetILFunctionBody, 22);
  EXPECT_SLOT(ICorProfilerInfo15, GetILFunctionBodyAllocator, 23);
  EXPECT_SLOT(ICorProfilerInfo15, SetILFunctionBody, 24);
  EXPECT_SLOT(ICorProfilerInfo15, GetAppDomainInfo, 25);
  EXPECT_SLOT(ICorProfilerInfo15, GetAssemblyInfo, 26);
  EXPECT_SLOT(ICorProfilerInfo15, SetFunctionReJIT, 27);
  EXPECT_SLOT(ICorProfilerInfo15, ForceGC, 28);
  EXPECT_SLOT(ICorProfilerInfo15, SetILInstrumentedCodeMap, 29);
  EXPECT_SLOT(ICorProfilerInfo15, GetInprocInspectionInterface, 30);
  EXPECT_SLOT(ICorProfilerInfo15, GetInprocInspectionIThisThread, 31);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadContext, 32);
  EXPECT_SLOT(ICorProfilerInfo15, BeginInprocDebugging, 33);
  EXPECT_SLOT(ICorProfilerInfo15, EndInprocDebugging, 34);
  EXPECT_SLOT(ICorProfilerInfo15, GetILToNativeMapping, 35);
  // ICorProfilerInfo2
  EXPECT_SLOT(ICorProfilerInfo15, DoStackSnapshot, 36);
  EXPECT_SLOT(ICorProfilerInfo15, SetEnterLeaveFunctionHooks2, 37);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionInfo2, 38);
  EXPECT_SLOT(ICorProfilerInfo15, GetStringLayout, 39);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassLayout, 40);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassIDInfo2, 41);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo2, 42);
  EXPECT_SLOT(ICorProfilerInfo15, GetClassFromTokenAndTypeArgs, 43);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromTokenAndTypeArgs, 44);
  EXPECT_SLOT(ICorProfilerInfo15, EnumModuleFrozenObjects, 45);
  EXPECT_SLOT(ICorProfilerInfo15, GetArrayObjectInfo, 46);
  EXPECT_SLOT(ICorProfilerInfo15, GetBoxClassLayout, 47);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadAppDomain, 48);
  EXPECT_SLOT(ICorProfilerInfo15, GetRVAStaticAddress, 49);
  EXPECT_SLOT(ICorProfilerInfo15, GetAppDomainStaticAddress, 50);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadStaticAddress, 51);
  EXPECT_SLOT(ICorProfilerInfo15, GetContextStaticAddress, 52);
  EXPECT_SLOT(ICorProfilerInfo15, GetStaticFieldInfo, 53);
  EXPECT_SLOT(ICorProfilerInfo15, GetGenerationBounds, 54);
  EXPECT_SLOT(ICorProfilerInfo15, GetObjectGeneration, 55);
  EXPECT_SLOT(ICorProfilerInfo15, GetNotifiedExceptionClauseInfo, 56);
  // ICorProfilerInfo3
  EXPECT_SLOT(ICorProfilerInfo15, EnumJITedFunctions, 57);
  EXPECT_SLOT(ICorProfilerInfo15, RequestProfilerDetach, 58);
  EXPECT_SLOT(ICorProfilerInfo15, SetFunctionIDMapper2, 59);
  EXPECT_SLOT(ICorProfilerInfo15, GetStringLayout2, 60);
  EXPECT_SLOT(ICorProfilerInfo15, SetEnterLeaveFunctionHooks3, 61);
  EXPECT_SLOT(ICorProfilerInfo15, SetEnterLeaveFunctionHooks3WithInfo, 62);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionEnter3Info, 63);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionLeave3Info, 64);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionTailcall3Info, 65);
  EXPECT_SLOT(ICorProfilerInfo15, EnumModules, 66);
  EXPECT_SLOT(ICorProfilerInfo15, GetRuntimeInformation, 67);
  EXPECT_SLOT(ICorProfilerInfo15, GetThreadStaticAddress2, 68);
  EXPECT_SLOT(ICorProfilerInfo15, GetAppDomainsContainingModule, 69);
  EXPECT_SLOT(ICorProfilerInfo15, GetModuleInfo2, 70);
  // ICorProfilerInfo4
  EXPECT_SLOT(ICorProfilerInfo15, EnumThreads, 71);
  EXPECT_SLOT(ICorProfilerInfo15, InitializeCurrentThread, 72);
  EXPECT_SLOT(ICorProfilerInfo15, RequestReJIT, 73);
  EXPECT_SLOT(ICorProfilerInfo15, RequestRevert, 74);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo3, 75);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromIP2, 76);
  EXPECT_SLOT(ICorProfilerInfo15, GetReJITIDs, 77);
  EXPECT_SLOT(ICorProfilerInfo15, GetILToNativeMapping2, 78);
  EXPECT_SLOT(ICorProfilerInfo15, EnumJITedFunctions2, 79);
  EXPECT_SLOT(ICorProfilerInfo15, GetObjectSize2, 80);
  // ICorProfilerInfo5
  EXPECT_SLOT(ICorProfilerInfo15, GetEventMask2, 81);
  EXPECT_SLOT(ICorProfilerInfo15, SetEventMask2, 82);
  // ICorProfilerInfo6
  EXPECT_SLOT(ICorProfilerInfo15, EnumNgenModuleMethodsInliningThisMethod, 83);
  // ICorProfilerInfo7
  EXPECT_SLOT(ICorProfilerInfo15, ApplyMetaData, 84);
  EXPECT_SLOT(ICorProfilerInfo15, GetInMemorySymbolsLength, 85);
  EXPECT_SLOT(ICorProfilerInfo15, ReadInMemorySymbols, 86);
  // ICorProfilerInfo8
  EXPECT_SLOT(ICorProfilerInfo15, IsFunctionDynamic, 87);
  EXPECT_SLOT(ICorProfilerInfo15, GetFunctionFromIP3, 88);
  EXPECT_SLOT(ICorProfilerInfo15, GetDynamicFunctionInfo, 89);
  // ICorProfilerInfo9
  EXPECT_SLOT(ICorProfilerInfo15, GetNativeCodeStartAddresses, 90);
  EXPECT_SLOT(ICorProfilerInfo15, GetILToNativeMapping3, 91);
  EXPECT_SLOT(ICorProfilerInfo15, GetCodeInfo4, 92);
  // ICorProfilerInfo10
  EXPECT_SLOT(ICorProfilerInfo15, EnumerateObjectReferences, 93);
  EXPECT_SLOT(ICorProfilerInfo15, IsFrozenObject, 94);
  EXPECT_SLOT(ICorProfilerInfo15, GetLOHObjectSizeThreshold, 95);
  EXPECT_SLOT(ICorProfilerInfo15, RequestReJITWithInliners, 96);
  EXPECT_SLOT(ICorProfilerInfo15, SuspendRuntime, 97);
  EXPECT_SLOT(ICorProfilerInfo15, ResumeRuntime, 98);
  // ICorProfilerInfo11
  EXPECT_SLOT(ICorProfilerInfo15, GetEnvironmentVariable, 99);
  EXPECT_SLOT(ICorProfilerInfo15, SetEnvironmentVariable, 100);
  // ICorProfilerInfo12
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeStartSession, 101);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeAddProviderToSession, 102);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeStopSession, 103);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeCreateProvider, 104);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeGetProviderInfo, 105);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeDefineEvent, 106);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeWriteEvent, 107);
  // ICorProfilerInfo13
  EXPECT_SLOT(ICorProfilerInfo15, CreateHandle, 108);
  EXPECT_SLOT(ICorProfilerInfo15, DestroyHandle, 109);
  EXPECT_SLOT(ICorProfilerInfo15, GetObjectIDFromHandle, 110);
  // ICorProfilerInfo14
  EXPECT_SLOT(ICorProfilerInfo15, EnumerateNonGCObjects, 111);
  EXPECT_SLOT(ICorProfilerInfo15, GetNonGCHeapBounds, 112);
  EXPECT_SLOT(ICorProfilerInfo15, EventPipeCreateProvider2, 113);
  // ICorProfilerInfo15
  EXPECT_SLOT(ICorProfilerInfo15, EnumerateGCHeapObjects, 114);
}

TEST(ClrVtable, MetaDataImport2EveryMethod) {
  SKIP_UNLESS_ITANIUM();
  // IUnknown
  EXPECT_SLOT(IMetaDataImport2, QueryInterface, 0);
  EXPECT_SLOT(IMetaDataImport2, AddRef, 1);
  EXPECT_SLOT(IMetaDataImport2, Release, 2);
  // IMetaDataImport
  EXPECT_SLOT(IMetaDataImport2, CloseEnum, 3);
  EXPECT_SLOT(IMetaDataImport2, CountEnum, 4);
  EXPECT_SLOT(IMetaDataImport2, ResetEnum, 5);
  EXPECT_SLOT(IMetaDataImport2, EnumTypeDefs, 6);
  EXPECT_SLOT(IMetaDataImport2, EnumInterfaceImpls, 7);
  EXPECT_SLOT(IMetaDataImport2, EnumTypeRefs, 8);
  EXPECT_SLOT(IMetaDataImport2, FindTypeDefByName, 9);
  EXPECT_SLOT(IMetaDataImport2, GetScopeProps, 10);
  EXPECT_SLOT(IMetaDataImport2, GetModuleFromScope, 11);
  EXPECT_SLOT(IMetaDataImport2, GetTypeDefProps, 12);
  EXPECT_SLOT(IMetaDataImport2, GetInterfaceImplProps, 13);
  EXPECT_SLOT(IMetaDataImport2, GetTypeRefProps, 14);
  EXPECT_SLOT(IMetaDataImport2, ResolveTypeRef, 15);
  EXPECT_SLOT(IMetaDataImport2, EnumMembers, 16);
  EXPECT_SLOT(IMetaDataImport2, EnumMembersWithName, 17);
  EXPECT_SLOT(IMetaDataImport2, EnumMethods, 18);
  EXPECT_SLOT(IMetaDataImport2, EnumMethodsWithName, 19);
  EXPECT_SLOT(IMetaDataImport2, EnumFields, 20);
  EXPECT_SLOT(IMetaDataImport2, EnumFieldsWithName, 21);
  EXPECT_SLOT(IMetaDataImport2, EnumParams, 22);
  EXPECT_SLOT(IMetaDataImport2, EnumMemberRefs, 23);
  EXPECT_SLOT(IMetaDataImport2, EnumMethodImpls, 24);
  EXPECT_SLOT(IMetaDataImport2, EnumPermissionSets, 25);
  EXPECT_SLOT(IMetaDataImport2, FindMember, 26);
  EXPECT_SLOT(IMetaDataImport2, FindMethod, 27);
  EXPECT_SLOT(IMetaDataImport2, FindField, 28);
  EXPECT_SLOT(IMetaDataImport2, FindMemberRef, 29);
  EXPECT_SLOT(IMetaDataImport2, GetMethodProps, 30);
  EXPECT_SLOT(IMetaDataImport2, GetMemberRefProps, 31);
  EXPECT_SLOT(IMetaDataImport2, EnumProperties, 32);
  EXPECT_SLOT(IMetaDataImport2, EnumEvents, 33);
  EXPECT_SLOT(IMetaDataImport2, GetEventProps, 34);
  EXPECT_SLOT(IMetaDataImport2, EnumMethodSemantics, 35);
  EXPECT_SLOT(IMetaDataImport2, GetMethodSemantics, 36);
  EXPECT_SLOT(IMetaDataImport2, GetClassLayout, 37);
  EXPECT_SLOT(IMetaDataImport2, GetFieldMarshal, 38);
  EXPECT_SLOT(IMetaDataImport2, GetRVA, 39);
  EXPECT_SLOT(IMetaDataImport2, GetPermissionSetProps, 40);
  EXPECT_SLOT(IMetaDataImport2, GetSigFromToken, 41);
  EXPECT_SLOT(IMetaDataImport2, GetModuleRefProps, 42);
  EXPECT_SLOT(IMetaDataImport2, EnumModuleRefs, 43);
  EXPECT_SLOT(IMetaDataImport2, GetTypeSpecFromToken, 44);
  EXPECT_SLOT(IMetaDataImport2, GetNameFromToken, 45);
  EXPECT_SLOT(IMetaDataImport2, EnumUnresolvedMethods, 46);
  EXPECT_SLOT(IMetaDataImport2, GetUserString, 47);
  EXPECT_SLOT(IMetaDataImport2, GetPinvokeMap, 48);
  EXPECT_SLOT(IMetaDataImport2, EnumSignatures, 49);
  EXPECT_SLOT(IMetaDataImport2, EnumTypeSpecs, 50);
  EXPECT_SLOT(IMetaDataImport2, EnumUserStrings, 51);
  EXPECT_SLOT(IMetaDataImport2, GetParamForMethodIndex, 52);
  EXPECT_SLOT(IMetaDataImport2, EnumCustomAttributes, 53);
  EXPECT_SLOT(IMetaDataImport2, GetCustomAttributeProps, 54);
  EXPECT_SLOT(IMetaDataImport2, FindTypeRef, 55);
  EXPECT_SLOT(IMetaDataImport2, GetMemberProps, 56);
  EXPECT_SLOT(IMetaDataImport2, GetFieldProps, 57);
  EXPECT_SLOT(IMetaDataImport2, GetPropertyProps, 58);
  EXPECT_SLOT(IMetaDataImport2, GetParamProps, 59);
  EXPECT_SLOT(IMetaDataImport2, GetCustomAttributeByName, 60);
  EXPECT_SLOT(IMetaDataImport2, IsValidToken, 61);
  EXPECT_SLOT(IMetaDataImport2, GetNestedClassProps, 62);
  EXPECT_SLOT(IMetaDataImport2, GetNativeCallConvFromSig, 63);
  EXPECT_SLOT(IMetaDataImport2, IsGlobal, 64);
  // IMetaDataImport2
  EXPECT_SLOT(IMetaDataImport2, EnumGenericParams, 65);
  EXPECT_SLOT(IMetaDataImport2, GetGenericParamProps, 66);
  EXPECT_SLOT(IMetaDataImport2, GetMethodSpecProps, 67);
  EXPECT_SLOT(IMetaDataImport2, EnumGenericParamConstraints, 68);
  EXPECT_SLOT(IMetaDataImport2, GetGenericParamConstraintProps, 69);
  EXPECT_SLOT(IMetaDataImport2, GetPEKind, 70);
  EXPECT_SLOT(IMetaDataImport2, GetVersionString, 71);
  EXPECT_SLOT(IMetaDataImport2, EnumMethodSpecs, 72);
}

// (interface, its first own method, slot of that method, its last method, total slot count)

// IMetaDataEmit (cor.h): the declared prefix, up to the last method the measuring code calls.
TEST(ClrVtable, MetaDataEmitMethodsWeUse) {
  SKIP_UNLESS_ITANIUM();
  static_assert(IID_IMetaDataEmit == GUID{0xBA3FEE4C, 0xECB9, 0x4E41, {0x83, 0xB7, 0x18, 0x3F, 0xA4, 0x1C, 0xD8, 0x59}},
                "IID_IMetaDataEmit");
  EXPECT_SLOT(IMetaDataEmit, DefineTypeDef, 7);
  EXPECT_SLOT(IMetaDataEmit, DefineMethod, 10);
  EXPECT_SLOT(IMetaDataEmit, DefineTypeRefByName, 12);
  EXPECT_SLOT(IMetaDataEmit, DefineMemberRef, 14);
  EXPECT_SLOT(IMetaDataEmit, GetTokenFromSig, 23);
  EXPECT_SLOT(IMetaDataEmit, DefineModuleRef, 24);
  EXPECT_SLOT(IMetaDataEmit, DefinePinvokeMap, 34);
  EXPECT_SLOT(IMetaDataEmit, DefineCustomAttribute, 37);
  EXPECT_TOTAL(IMetaDataEmit, 38);
}
