#pragma once
// The CLR profiling API: IDs, flags, structs, ICorProfilerCallback..11 (the runtime calls us) and
// ICorProfilerInfo..15 (we call the runtime), declared from the public corprof.idl of
// dotnet/runtime. Binary compatibility is all that matters here: every interface lists every
// method, inherited ones first, in the IDL's order, because the runtime reaches them by vtable
// slot. tests/clr_headers_test.cpp pins the slot of every method.
//
// Newer interfaces only add methods at the end, so a profiler built against these declarations
// works on any runtime that answers QueryInterface for the version it asks for.
#include "clr/metadata.h"
#include "clr/unknown.h"

namespace clr {

// ---- Opaque runtime IDs. Pointer-sized; 0 is never a valid ID. ----
using ProcessID = UINT_PTR;
using AssemblyID = UINT_PTR;
using AppDomainID = UINT_PTR;
using ModuleID = UINT_PTR;
using ClassID = UINT_PTR;
using ThreadID = UINT_PTR;
using ContextID = UINT_PTR;
using FunctionID = UINT_PTR;
using ObjectID = UINT_PTR;
using GCHandleID = UINT_PTR;
using COR_PRF_ELT_INFO = UINT_PTR;
using ReJITID = UINT_PTR;
using COR_PRF_FRAME_INFO = UINT_PTR;  // only valid inside the callback that handed it out

using EVENTPIPE_PROVIDER = UINT_PTR;
using EVENTPIPE_EVENT = UINT_PTR;
using EVENTPIPE_SESSION = UINT64;  // 64-bit even on 32-bit targets

using ObjectHandleID = void**;

// Defined by the metadata API (cor.h); only passed through by pointer here.
struct ASSEMBLYMETADATA;

// ---- Structures ----

struct COR_IL_MAP {
  ULONG32 oldOffset;
  ULONG32 newOffset;
  BOOL fAccurate;
};

// Special values an ilOffset may take in a COR_DEBUG_IL_TO_NATIVE_MAP entry.
enum CorDebugIlToNativeMappingTypes : std::int32_t {
  NO_MAPPING = -1,
  PROLOG = -2,
  EPILOG = -3,
};

struct COR_DEBUG_IL_TO_NATIVE_MAP {
  ULONG32 ilOffset;
  ULONG32 nativeStartOffset;
  ULONG32 nativeEndOffset;
};

struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
  UINT_PTR startAddress;
  ULONG length;
};

// Variable length: the runtime writes numRanges entries into a caller-sized buffer.
struct COR_PRF_FUNCTION_ARGUMENT_INFO {
  ULONG numRanges;
  ULONG totalArgumentSize;
  COR_PRF_FUNCTION_ARGUMENT_RANGE ranges[1];
};

// One contiguous block of a method's native code (a method can have several, e.g. cold code).
struct COR_PRF_CODE_INFO {
  UINT_PTR startAddress;
  SIZE_T size;
};

struct COR_PRF_FUNCTION {
  FunctionID functionId;
  ReJITID reJitId;
};

struct COR_PRF_ASSEMBLY_REFERENCE_INFO {
  void* pbPublicKeyOrToken;
  ULONG cbPublicKeyOrToken;
  LPCWSTR szName;
  ASSEMBLYMETADATA* pMetaData;
  void* pbHashValue;
  ULONG cbHashValue;
  DWORD dwAssemblyRefFlags;
};

struct COR_PRF_METHOD {
  ModuleID moduleId;
  mdMethodDef methodId;
};

union FunctionIDOrClientID {
  FunctionID functionID;
  UINT_PTR clientID;
};

// ---- Enumerations. Fixed 4-byte underlying types: several travel by value or inside structs. ----

enum COR_PRF_SNAPSHOT_INFO : std::uint32_t {
  COR_PRF_SNAPSHOT_DEFAULT = 0x0,
  COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
  COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2,
};

enum COR_PRF_STATIC_TYPE : std::uint32_t {
  COR_PRF_FIELD_NOT_A_STATIC = 0x0,
  COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
  COR_PRF_FIELD_THREAD_STATIC = 0x2,
  COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
  COR_PRF_FIELD_RVA_STATIC = 0x8,
};

// Low event mask (SetEventMask / first half of SetEventMask2).
enum COR_PRF_MONITOR : std::uint32_t {
  COR_PRF_MONITOR_NONE = 0x00000000,
  COR_PRF_MONITOR_FUNCTION_UNLOADS = 0x00000001,
  COR_PRF_MONITOR_CLASS_LOADS = 0x00000002,
  COR_PRF_MONITOR_MODULE_LOADS = 0x00000004,
  COR_PRF_MONITOR_ASSEMBLY_LOADS = 0x00000008,
  COR_PRF_MONITOR_APPDOMAIN_LOADS = 0x00000010,
  COR_PRF_MONITOR_JIT_COMPILATION = 0x00000020,
  COR_PRF_MONITOR_EXCEPTIONS = 0x00000040,
  COR_PRF_MONITOR_GC = 0x00000080,
  COR_PRF_MONITOR_OBJECT_ALLOCATED = 0x00000100,
  COR_PRF_MONITOR_THREADS = 0x00000200,
  COR_PRF_MONITOR_REMOTING = 0x00000400,  // no remoting on CoreCLR
  COR_PRF_MONITOR_CODE_TRANSITIONS = 0x00000800,
  COR_PRF_MONITOR_ENTERLEAVE = 0x00001000,
  COR_PRF_MONITOR_CCW = 0x00002000,
  COR_PRF_MONITOR_REMOTING_COOKIE = 0x00004000 | COR_PRF_MONITOR_REMOTING,
  COR_PRF_MONITOR_REMOTING_ASYNC = 0x00008000 | COR_PRF_MONITOR_REMOTING,
  COR_PRF_MONITOR_SUSPENDS = 0x00010000,
  COR_PRF_MONITOR_CACHE_SEARCHES = 0x00020000,
  COR_PRF_ENABLE_REJIT = 0x00040000,
  COR_PRF_ENABLE_INPROC_DEBUGGING = 0x00080000,  // ignored since v2
  COR_PRF_ENABLE_JIT_MAPS = 0x00100000,          // always on since v2
  COR_PRF_DISABLE_INLINING = 0x00200000,
  COR_PRF_DISABLE_OPTIMIZATIONS = 0x00400000,
  COR_PRF_ENABLE_OBJECT_ALLOCATED = 0x00800000,
  COR_PRF_MONITOR_CLR_EXCEPTIONS = 0x01000000,
  COR_PRF_MONITOR_ALL = 0x0107FFFF,
  COR_PRF_ENABLE_FUNCTION_ARGS = 0x02000000,
  COR_PRF_ENABLE_FUNCTION_RETVAL = 0x04000000,
  COR_PRF_ENABLE_FRAME_INFO = 0x08000000,
  COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000,
  COR_PRF_USE_PROFILE_IMAGES = 0x20000000,
  COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST = 0x40000000,
  COR_PRF_DISABLE_ALL_NGEN_IMAGES = 0x80000000,
  COR_PRF_ALL = 0x8FFFFFFF,

  COR_PRF_REQUIRE_PROFILE_IMAGE =
      COR_PRF_USE_PROFILE_IMAGES | COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_ENTERLEAVE,

  // What an attaching profiler may ask for. DISABLE_INLINING and DISABLE_OPTIMIZATIONS joined
  // this mask (and left COR_PRF_MONITOR_IMMUTABLE) in .NET 10, dotnet/runtime#113924; older
  // runtimes refuse them after attach.
  COR_PRF_ALLOWABLE_AFTER_ATTACH =
      COR_PRF_MONITOR_THREADS | COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
      COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_MONITOR_GC |
      COR_PRF_MONITOR_SUSPENDS | COR_PRF_MONITOR_CLASS_LOADS | COR_PRF_MONITOR_EXCEPTIONS |
      COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
      COR_PRF_ENABLE_REJIT,

  COR_PRF_ALLOWABLE_NOTIFICATION_PROFILER =
      COR_PRF_MONITOR_FUNCTION_UNLOADS | COR_PRF_MONITOR_CLASS_LOADS |
      COR_PRF_MONITOR_MODULE_LOADS | COR_PRF_MONITOR_ASSEMBLY_LOADS |
      COR_PRF_MONITOR_APPDOMAIN_LOADS | COR_PRF_MONITOR_JIT_COMPILATION |
      COR_PRF_MONITOR_EXCEPTIONS | COR_PRF_MONITOR_OBJECT_ALLOCATED | COR_PRF_MONITOR_THREADS |
      COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_CCW | COR_PRF_MONITOR_SUSPENDS |
      COR_PRF_MONITOR_CACHE_SEARCHES | COR_PRF_DISABLE_INLINING | COR_PRF_DISABLE_OPTIMIZATIONS |
      COR_PRF_ENABLE_OBJECT_ALLOCATED | COR_PRF_MONITOR_CLR_EXCEPTIONS |
      COR_PRF_ENABLE_STACK_SNAPSHOT | COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_ALL_NGEN_IMAGES,

  // Flags that can only be set from Initialize (before .NET 10 also DISABLE_INLINING and
  // DISABLE_OPTIMIZATIONS).
  COR_PRF_MONITOR_IMMUTABLE =
      COR_PRF_MONITOR_CODE_TRANSITIONS | COR_PRF_MONITOR_REMOTING |
      COR_PRF_MONITOR_REMOTING_COOKIE | COR_PRF_MONITOR_REMOTING_ASYNC |
      COR_PRF_ENABLE_INPROC_DEBUGGING | COR_PRF_ENABLE_JIT_MAPS | COR_PRF_ENABLE_OBJECT_ALLOCATED |
      COR_PRF_ENABLE_FUNCTION_ARGS | COR_PRF_ENABLE_FUNCTION_RETVAL | COR_PRF_ENABLE_FRAME_INFO |
      COR_PRF_USE_PROFILE_IMAGES | COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST |
      COR_PRF_DISABLE_ALL_NGEN_IMAGES,
};

// High event mask (second half of SetEventMask2).
enum COR_PRF_HIGH_MONITOR : std::uint32_t {
  COR_PRF_HIGH_MONITOR_NONE = 0x00000000,
  COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES = 0x00000001,  // not checked by CoreCLR
  COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED = 0x00000002,
  COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS = 0x00000004,
  COR_PRF_HIGH_DISABLE_TIERED_COMPILATION = 0x00000008,
  COR_PRF_HIGH_BASIC_GC = 0x00000010,
  COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS = 0x00000020,
  COR_PRF_HIGH_REQUIRE_PROFILE_IMAGE = 0,
  COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED = 0x00000040,
  COR_PRF_HIGH_MONITOR_EVENT_PIPE = 0x00000080,
  COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED = 0x00000100,
  // Added after .NET 10 (dotnet/runtime#123177, early 2026); .NET 10 ignores it.
  COR_PRF_HIGH_MONITOR_GC_SKIP_ALLOCATED_BY_CLASS_STATISTIC = 0x00000200,

  COR_PRF_HIGH_ALLOWABLE_AFTER_ATTACH =
      COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
      COR_PRF_HIGH_BASIC_GC | COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS |
      COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED | COR_PRF_HIGH_MONITOR_EVENT_PIPE,

  COR_PRF_HIGH_ALLOWABLE_NOTIFICATION_PROFILER =
      COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED | COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS |
      COR_PRF_HIGH_DISABLE_TIERED_COMPILATION | COR_PRF_HIGH_BASIC_GC |
      COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS | COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED |
      COR_PRF_HIGH_MONITOR_EVENT_PIPE,

  COR_PRF_HIGH_MONITOR_IMMUTABLE = COR_PRF_HIGH_DISABLE_TIERED_COMPILATION,
};

// Sentinel IDs reported by some queries.
enum COR_PRF_MISC : std::uint32_t {
  PROFILER_PARENT_UNKNOWN = 0xFFFFFFFD,
  PROFILER_GLOBAL_CLASS = 0xFFFFFFFE,
  PROFILER_GLOBAL_MODULE = 0xFFFFFFFF,
};

enum COR_PRF_JIT_CACHE : std::uint32_t {
  COR_PRF_CACHED_FUNCTION_FOUND = 0,
  COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1,
};

enum COR_PRF_TRANSITION_REASON : std::uint32_t {
  COR_PRF_TRANSITION_CALL = 0,
  COR_PRF_TRANSITION_RETURN = 1,
};

enum COR_PRF_SUSPEND_REASON : std::uint32_t {
  COR_PRF_SUSPEND_OTHER = 0,
  COR_PRF_SUSPEND_FOR_GC = 1,
  COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
  COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
  COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
  COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
  COR_PRF_SUSPEND_FOR_GC_PREP = 7,
  COR_PRF_SUSPEND_FOR_REJIT = 8,
  COR_PRF_SUSPEND_FOR_PROFILER = 9,
};

enum COR_PRF_RUNTIME_TYPE : std::uint32_t {
  COR_PRF_DESKTOP_CLR = 0x1,
  COR_PRF_CORE_CLR = 0x2,
};

enum COR_PRF_REJIT_FLAGS : std::uint32_t {
  COR_PRF_REJIT_BLOCK_INLINING = 0x1,
  COR_PRF_REJIT_INLINING_CALLBACKS = 0x2,
};

enum COR_PRF_EVENTPIPE_PARAM_TYPE : std::uint32_t {
  COR_PRF_EVENTPIPE_OBJECT = 1,
  COR_PRF_EVENTPIPE_BOOLEAN = 3,
  COR_PRF_EVENTPIPE_CHAR = 4,
  COR_PRF_EVENTPIPE_SBYTE = 5,
  COR_PRF_EVENTPIPE_BYTE = 6,
  COR_PRF_EVENTPIPE_INT16 = 7,
  COR_PRF_EVENTPIPE_UINT16 = 8,
  COR_PRF_EVENTPIPE_INT32 = 9,
  COR_PRF_EVENTPIPE_UINT32 = 10,
  COR_PRF_EVENTPIPE_INT64 = 11,
  COR_PRF_EVENTPIPE_UINT64 = 12,
  COR_PRF_EVENTPIPE_SINGLE = 13,
  COR_PRF_EVENTPIPE_DOUBLE = 14,
  COR_PRF_EVENTPIPE_DECIMAL = 15,
  COR_PRF_EVENTPIPE_DATETIME = 16,
  COR_PRF_EVENTPIPE_GUID = 17,
  COR_PRF_EVENTPIPE_STRING = 18,
  COR_PRF_EVENTPIPE_ARRAY = 19,
};

enum COR_PRF_EVENTPIPE_LEVEL : std::uint32_t {
  COR_PRF_EVENTPIPE_LOGALWAYS = 0,
  COR_PRF_EVENTPIPE_CRITICAL = 1,
  COR_PRF_EVENTPIPE_ERROR = 2,
  COR_PRF_EVENTPIPE_WARNING = 3,
  COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
  COR_PRF_EVENTPIPE_VERBOSE = 5,
};

// One provider to enable in EventPipeStartSession / EventPipeAddProviderToSession.
struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
  const WCHAR* providerName;
  UINT64 keywords;
  UINT32 loggingLevel;      // a COR_PRF_EVENTPIPE_LEVEL
  const WCHAR* filterData;  // "key=value;..." or null
};

struct COR_PRF_EVENTPIPE_PARAM_DESC {
  UINT32 type;         // a COR_PRF_EVENTPIPE_PARAM_TYPE
  UINT32 elementType;  // element type when type is COR_PRF_EVENTPIPE_ARRAY
  const WCHAR* name;
};

struct COR_PRF_EVENT_DATA {
  UINT64 ptr;
  UINT32 size;
  UINT32 reserved;
};

struct COR_PRF_FILTER_DATA {
  UINT64 Ptr;
  UINT32 Size;
  UINT32 Type;
};

enum COR_PRF_HANDLE_TYPE : std::uint32_t {
  COR_PRF_HANDLE_TYPE_WEAK = 0x1,
  COR_PRF_HANDLE_TYPE_STRONG = 0x2,
  COR_PRF_HANDLE_TYPE_PINNED = 0x3,
};

enum COR_PRF_GC_ROOT_KIND : std::uint32_t {
  COR_PRF_GC_ROOT_OTHER = 0,
  COR_PRF_GC_ROOT_STACK = 1,
  COR_PRF_GC_ROOT_FINALIZER = 2,
  COR_PRF_GC_ROOT_HANDLE = 3,
};

enum COR_PRF_GC_ROOT_FLAGS : std::uint32_t {
  COR_PRF_GC_ROOT_PINNING = 0x1,
  COR_PRF_GC_ROOT_WEAKREF = 0x2,
  COR_PRF_GC_ROOT_INTERIOR = 0x4,
  COR_PRF_GC_ROOT_REFCOUNTED = 0x8,
};

enum COR_PRF_FINALIZER_FLAGS : std::uint32_t {
  COR_PRF_FINALIZER_CRITICAL = 0x1,
};

// Also the index into GarbageCollectionStarted's generationCollected[] array.
enum COR_PRF_GC_GENERATION : std::uint32_t {
  COR_PRF_GC_GEN_0 = 0,
  COR_PRF_GC_GEN_1 = 1,
  COR_PRF_GC_GEN_2 = 2,
  COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
  COR_PRF_GC_PINNED_OBJECT_HEAP = 4,
};

// rangeLength is only exact when read inside GarbageCollectionStarted/Finished.
struct COR_PRF_GC_GENERATION_RANGE {
  COR_PRF_GC_GENERATION generation;
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

struct COR_PRF_NONGC_HEAP_RANGE {
  ObjectID rangeStart;
  UINT_PTR rangeLength;
  UINT_PTR rangeLengthReserved;
};

enum COR_PRF_CLAUSE_TYPE : std::uint32_t {
  COR_PRF_CLAUSE_NONE = 0,
  COR_PRF_CLAUSE_FILTER = 1,
  COR_PRF_CLAUSE_CATCH = 2,
  COR_PRF_CLAUSE_FINALLY = 3,
};

struct COR_PRF_EX_CLAUSE_INFO {
  COR_PRF_CLAUSE_TYPE clauseType;
  UINT_PTR programCounter;
  UINT_PTR framePointer;
  UINT_PTR shadowStackPointer;
};

enum COR_PRF_GC_REASON : std::uint32_t {
  COR_PRF_GC_OTHER = 0,
  COR_PRF_GC_INDUCED = 1,  // GC.Collect
};

// Bits of GetModuleInfo2's pdwModuleFlags.
enum COR_PRF_MODULE_FLAGS : std::uint32_t {
  COR_PRF_MODULE_DISK = 0x00000001,
  COR_PRF_MODULE_NGEN = 0x00000002,
  COR_PRF_MODULE_DYNAMIC = 0x00000004,
  COR_PRF_MODULE_COLLECTIBLE = 0x00000008,
  COR_PRF_MODULE_RESOURCE = 0x00000010,
  COR_PRF_MODULE_FLAT_LAYOUT = 0x00000020,
  COR_PRF_MODULE_WINDOWS_RUNTIME = 0x00000040,
};

enum COR_PRF_CODEGEN_FLAGS : std::uint32_t {
  COR_PRF_CODEGEN_DISABLE_INLINING = 0x0001,
  COR_PRF_CODEGEN_DISABLE_ALL_OPTIMIZATIONS = 0x0002,
  COR_PRF_CODEGEN_DEBUG_INFO = 0x0003,
};

// ---- Callback function types, with the runtime's signatures. The Enter/Leave/Tailcall hooks are
// called with no registers saved and must be written in assembly; we only need their types to
// declare the Set*Hooks methods. ----
using FunctionIDMapper = UINT_PTR CLR_STDCALL(FunctionID funcId, BOOL* pbHookFunction);
using FunctionIDMapper2 = UINT_PTR CLR_STDCALL(FunctionID funcId, void* clientData,
                                               BOOL* pbHookFunction);
using FunctionEnter = void(FunctionID funcID);
using FunctionLeave = void(FunctionID funcID);
using FunctionTailcall = void(FunctionID funcID);
using FunctionEnter2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_INFO* argumentInfo);
using FunctionLeave2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func,
                            COR_PRF_FUNCTION_ARGUMENT_RANGE* retvalRange);
using FunctionTailcall2 = void(FunctionID funcId, UINT_PTR clientData, COR_PRF_FRAME_INFO func);
using FunctionEnter3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionLeave3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionTailcall3 = void(FunctionIDOrClientID functionIDOrClientID);
using FunctionEnter3WithInfo = void(FunctionIDOrClientID functionIDOrClientID,
                                    COR_PRF_ELT_INFO eltInfo);
using FunctionLeave3WithInfo = void(FunctionIDOrClientID functionIDOrClientID,
                                    COR_PRF_ELT_INFO eltInfo);
using FunctionTailcall3WithInfo = void(FunctionIDOrClientID functionIDOrClientID,
                                       COR_PRF_ELT_INFO eltInfo);
// funcId 0 marks a run of native frames; context is only filled with
// COR_PRF_SNAPSHOT_REGISTER_CONTEXT.
using StackSnapshotCallback = HRESULT CLR_STDCALL(FunctionID funcId, UINT_PTR ip,
                                                  COR_PRF_FRAME_INFO frameInfo, ULONG32 contextSize,
                                                  BYTE context[], void* clientData);
using ObjectReferenceCallback = BOOL(ObjectID root, ObjectID* reference, void* clientData);
using ObjectCallback = BOOL (*)(ObjectID object, void* callbackState);
using EventPipeProviderCallback = void(const UINT8* source_id, UINT32 is_enabled, UINT8 level,
                                       UINT64 match_any_keywords, UINT64 match_all_keywords,
                                       COR_PRF_FILTER_DATA* filter_data, void* callback_data);

// ---- Small helper interfaces (enumerators and friends), complete. ----

struct ICorProfilerObjectEnum : IUnknown {
  virtual HRESULT CLR_STDCALL Skip(ULONG celt) = 0;
  virtual HRESULT CLR_STDCALL Reset() = 0;
  virtual HRESULT CLR_STDCALL Clone(ICorProfilerObjectEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetCount(ULONG* pcelt) = 0;
  virtual HRESULT CLR_STDCALL Next(ULONG celt, ObjectID objects[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerFunctionEnum : IUnknown {
  virtual HRESULT CLR_STDCALL Skip(ULONG celt) = 0;
  virtual HRESULT CLR_STDCALL Reset() = 0;
  virtual HRESULT CLR_STDCALL Clone(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetCount(ULONG* pcelt) = 0;
  virtual HRESULT CLR_STDCALL Next(ULONG celt, COR_PRF_FUNCTION ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerModuleEnum : IUnknown {
  virtual HRESULT CLR_STDCALL Skip(ULONG celt) = 0;
  virtual HRESULT CLR_STDCALL Reset() = 0;
  virtual HRESULT CLR_STDCALL Clone(ICorProfilerModuleEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetCount(ULONG* pcelt) = 0;
  virtual HRESULT CLR_STDCALL Next(ULONG celt, ModuleID ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerThreadEnum : IUnknown {
  virtual HRESULT CLR_STDCALL Skip(ULONG celt) = 0;
  virtual HRESULT CLR_STDCALL Reset() = 0;
  virtual HRESULT CLR_STDCALL Clone(ICorProfilerThreadEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetCount(ULONG* pcelt) = 0;
  virtual HRESULT CLR_STDCALL Next(ULONG celt, ThreadID ids[], ULONG* pceltFetched) = 0;
};

struct ICorProfilerMethodEnum : IUnknown {
  virtual HRESULT CLR_STDCALL Skip(ULONG celt) = 0;
  virtual HRESULT CLR_STDCALL Reset() = 0;
  virtual HRESULT CLR_STDCALL Clone(ICorProfilerMethodEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetCount(ULONG* pcelt) = 0;
  virtual HRESULT CLR_STDCALL Next(ULONG celt, COR_PRF_METHOD elements[], ULONG* pceltFetched) = 0;
};

// Deprecated allocator for SetILFunctionBody; memory can never be freed.
struct IMethodMalloc : IUnknown {
  virtual PVOID CLR_STDCALL Alloc(ULONG cb) = 0;
};

struct ICorProfilerFunctionControl : IUnknown {
  virtual HRESULT CLR_STDCALL SetCodegenFlags(DWORD flags) = 0;
  virtual HRESULT CLR_STDCALL SetILFunctionBody(ULONG cbNewILMethodHeader,
                                                LPCBYTE pbNewILMethodHeader) = 0;
  virtual HRESULT CLR_STDCALL SetILInstrumentedCodeMap(ULONG cILMapEntries,
                                                       COR_IL_MAP rgILMapEntries[]) = 0;
};

struct ICorProfilerAssemblyReferenceProvider : IUnknown {
  virtual HRESULT CLR_STDCALL
  AddAssemblyReference(const COR_PRF_ASSEMBLY_REFERENCE_INFO* pAssemblyRefInfo) = 0;
};

// ---- Callbacks: implemented by the profiler, called by the runtime. ----

struct ICorProfilerCallback : IUnknown {
  // Startup and shutdown.
  virtual HRESULT CLR_STDCALL Initialize(IUnknown* pICorProfilerInfoUnk) = 0;
  virtual HRESULT CLR_STDCALL Shutdown() = 0;
  // App domains, assemblies, modules, classes.
  virtual HRESULT CLR_STDCALL AppDomainCreationStarted(AppDomainID appDomainId) = 0;
  virtual HRESULT CLR_STDCALL AppDomainCreationFinished(AppDomainID appDomainId,
                                                        HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL AppDomainShutdownStarted(AppDomainID appDomainId) = 0;
  virtual HRESULT CLR_STDCALL AppDomainShutdownFinished(AppDomainID appDomainId,
                                                        HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL AssemblyLoadStarted(AssemblyID assemblyId) = 0;
  virtual HRESULT CLR_STDCALL AssemblyLoadFinished(AssemblyID assemblyId, HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL AssemblyUnloadStarted(AssemblyID assemblyId) = 0;
  virtual HRESULT CLR_STDCALL AssemblyUnloadFinished(AssemblyID assemblyId, HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL ModuleLoadStarted(ModuleID moduleId) = 0;
  virtual HRESULT CLR_STDCALL ModuleLoadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL ModuleUnloadStarted(ModuleID moduleId) = 0;
  virtual HRESULT CLR_STDCALL ModuleUnloadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL ModuleAttachedToAssembly(ModuleID moduleId,
                                                       AssemblyID AssemblyId) = 0;
  virtual HRESULT CLR_STDCALL ClassLoadStarted(ClassID classId) = 0;
  virtual HRESULT CLR_STDCALL ClassLoadFinished(ClassID classId, HRESULT hrStatus) = 0;
  virtual HRESULT CLR_STDCALL ClassUnloadStarted(ClassID classId) = 0;
  virtual HRESULT CLR_STDCALL ClassUnloadFinished(ClassID classId, HRESULT hrStatus) = 0;
  // JIT.
  virtual HRESULT CLR_STDCALL FunctionUnloadStarted(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL JITCompilationStarted(FunctionID functionId, BOOL fIsSafeToBlock) = 0;
  virtual HRESULT CLR_STDCALL JITCompilationFinished(FunctionID functionId, HRESULT hrStatus,
                                                     BOOL fIsSafeToBlock) = 0;
  virtual HRESULT CLR_STDCALL JITCachedFunctionSearchStarted(FunctionID functionId,
                                                             BOOL* pbUseCachedFunction) = 0;
  virtual HRESULT CLR_STDCALL JITCachedFunctionSearchFinished(FunctionID functionId,
                                                              COR_PRF_JIT_CACHE result) = 0;
  virtual HRESULT CLR_STDCALL JITFunctionPitched(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL JITInlining(FunctionID callerId, FunctionID calleeId,
                                          BOOL* pfShouldInline) = 0;
  // Threads.
  virtual HRESULT CLR_STDCALL ThreadCreated(ThreadID threadId) = 0;
  virtual HRESULT CLR_STDCALL ThreadDestroyed(ThreadID threadId) = 0;
  virtual HRESULT CLR_STDCALL ThreadAssignedToOSThread(ThreadID managedThreadId,
                                                       DWORD osThreadId) = 0;
  // Remoting: never raised by CoreCLR, but the slots remain.
  virtual HRESULT CLR_STDCALL RemotingClientInvocationStarted() = 0;
  virtual HRESULT CLR_STDCALL RemotingClientSendingMessage(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT CLR_STDCALL RemotingClientReceivingReply(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT CLR_STDCALL RemotingClientInvocationFinished() = 0;
  virtual HRESULT CLR_STDCALL RemotingServerReceivingMessage(GUID* pCookie, BOOL fIsAsync) = 0;
  virtual HRESULT CLR_STDCALL RemotingServerInvocationStarted() = 0;
  virtual HRESULT CLR_STDCALL RemotingServerInvocationReturned() = 0;
  virtual HRESULT CLR_STDCALL RemotingServerSendingReply(GUID* pCookie, BOOL fIsAsync) = 0;
  // Managed/native transitions.
  virtual HRESULT CLR_STDCALL UnmanagedToManagedTransition(FunctionID functionId,
                                                           COR_PRF_TRANSITION_REASON reason) = 0;
  virtual HRESULT CLR_STDCALL ManagedToUnmanagedTransition(FunctionID functionId,
                                                           COR_PRF_TRANSITION_REASON reason) = 0;
  // Runtime suspension.
  virtual HRESULT CLR_STDCALL RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON suspendReason) = 0;
  virtual HRESULT CLR_STDCALL RuntimeSuspendFinished() = 0;
  virtual HRESULT CLR_STDCALL RuntimeSuspendAborted() = 0;
  virtual HRESULT CLR_STDCALL RuntimeResumeStarted() = 0;
  virtual HRESULT CLR_STDCALL RuntimeResumeFinished() = 0;
  virtual HRESULT CLR_STDCALL RuntimeThreadSuspended(ThreadID threadId) = 0;
  virtual HRESULT CLR_STDCALL RuntimeThreadResumed(ThreadID threadId) = 0;
  // GC.
  virtual HRESULT CLR_STDCALL MovedReferences(ULONG cMovedObjectIDRanges,
                                              ObjectID oldObjectIDRangeStart[],
                                              ObjectID newObjectIDRangeStart[],
                                              ULONG cObjectIDRangeLength[]) = 0;
  virtual HRESULT CLR_STDCALL ObjectAllocated(ObjectID objectId, ClassID classId) = 0;
  virtual HRESULT CLR_STDCALL ObjectsAllocatedByClass(ULONG cClassCount, ClassID classIds[],
                                                      ULONG cObjects[]) = 0;
  virtual HRESULT CLR_STDCALL ObjectReferences(ObjectID objectId, ClassID classId,
                                               ULONG cObjectRefs, ObjectID objectRefIds[]) = 0;
  virtual HRESULT CLR_STDCALL RootReferences(ULONG cRootRefs, ObjectID rootRefIds[]) = 0;
  // Exceptions.
  virtual HRESULT CLR_STDCALL ExceptionThrown(ObjectID thrownObjectId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionSearchFunctionEnter(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionSearchFunctionLeave() = 0;
  virtual HRESULT CLR_STDCALL ExceptionSearchFilterEnter(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionSearchFilterLeave() = 0;
  virtual HRESULT CLR_STDCALL ExceptionSearchCatcherFound(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionOSHandlerEnter(UINT_PTR unused) = 0;  // deprecated
  virtual HRESULT CLR_STDCALL ExceptionOSHandlerLeave(UINT_PTR unused) = 0;  // deprecated
  virtual HRESULT CLR_STDCALL ExceptionUnwindFunctionEnter(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionUnwindFunctionLeave() = 0;
  virtual HRESULT CLR_STDCALL ExceptionUnwindFinallyEnter(FunctionID functionId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionUnwindFinallyLeave() = 0;
  virtual HRESULT CLR_STDCALL ExceptionCatcherEnter(FunctionID functionId, ObjectID objectId) = 0;
  virtual HRESULT CLR_STDCALL ExceptionCatcherLeave() = 0;
  // COM interop vtables.
  virtual HRESULT CLR_STDCALL COMClassicVTableCreated(ClassID wrappedClassId,
                                                      REFGUID implementedIID, void* pVTable,
                                                      ULONG cSlots) = 0;
  virtual HRESULT CLR_STDCALL COMClassicVTableDestroyed(ClassID wrappedClassId,
                                                        REFGUID implementedIID, void* pVTable) = 0;
  // No longer delivered.
  virtual HRESULT CLR_STDCALL ExceptionCLRCatcherFound() = 0;
  virtual HRESULT CLR_STDCALL ExceptionCLRCatcherExecute() = 0;
};

struct ICorProfilerCallback2 : ICorProfilerCallback {
  // name is not NUL-terminated; cchName is its length.
  virtual HRESULT CLR_STDCALL ThreadNameChanged(ThreadID threadId, ULONG cchName, WCHAR name[]) = 0;
  // generationCollected[i] tells whether COR_PRF_GC_GENERATION i is collected.
  virtual HRESULT CLR_STDCALL GarbageCollectionStarted(int cGenerations, BOOL generationCollected[],
                                                       COR_PRF_GC_REASON reason) = 0;
  virtual HRESULT CLR_STDCALL SurvivingReferences(ULONG cSurvivingObjectIDRanges,
                                                  ObjectID objectIDRangeStart[],
                                                  ULONG cObjectIDRangeLength[]) = 0;
  virtual HRESULT CLR_STDCALL GarbageCollectionFinished() = 0;
  virtual HRESULT CLR_STDCALL FinalizeableObjectQueued(DWORD finalizerFlags, ObjectID objectID) = 0;
  virtual HRESULT CLR_STDCALL RootReferences2(ULONG cRootRefs, ObjectID rootRefIds[],
                                              COR_PRF_GC_ROOT_KIND rootKinds[],
                                              COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                              UINT_PTR rootIds[]) = 0;
  virtual HRESULT CLR_STDCALL HandleCreated(GCHandleID handleId, ObjectID initialObjectId) = 0;
  virtual HRESULT CLR_STDCALL HandleDestroyed(GCHandleID handleId) = 0;
};

struct ICorProfilerCallback3 : ICorProfilerCallback2 {
  // Attach path: called instead of Initialize; pvClientData is the attacher's blob.
  virtual HRESULT CLR_STDCALL InitializeForAttach(IUnknown* pCorProfilerInfoUnk, void* pvClientData,
                                                  UINT cbClientData) = 0;
  virtual HRESULT CLR_STDCALL ProfilerAttachComplete() = 0;
  virtual HRESULT CLR_STDCALL ProfilerDetachSucceeded() = 0;
};

struct ICorProfilerCallback4 : ICorProfilerCallback3 {
  virtual HRESULT CLR_STDCALL ReJITCompilationStarted(FunctionID functionId, ReJITID rejitId,
                                                      BOOL fIsSafeToBlock) = 0;
  virtual HRESULT CLR_STDCALL GetReJITParameters(ModuleID moduleId, mdMethodDef methodId,
                                                 ICorProfilerFunctionControl* pFunctionControl) = 0;
  virtual HRESULT CLR_STDCALL ReJITCompilationFinished(FunctionID functionId, ReJITID rejitId,
                                                       HRESULT hrStatus, BOOL fIsSafeToBlock) = 0;
  virtual HRESULT CLR_STDCALL ReJITError(ModuleID moduleId, mdMethodDef methodId,
                                         FunctionID functionId, HRESULT hrStatus) = 0;
  // 64-bit-safe replacements for MovedReferences/SurvivingReferences.
  virtual HRESULT CLR_STDCALL MovedReferences2(ULONG cMovedObjectIDRanges,
                                               ObjectID oldObjectIDRangeStart[],
                                               ObjectID newObjectIDRangeStart[],
                                               SIZE_T cObjectIDRangeLength[]) = 0;
  virtual HRESULT CLR_STDCALL SurvivingReferences2(ULONG cSurvivingObjectIDRanges,
                                                   ObjectID objectIDRangeStart[],
                                                   SIZE_T cObjectIDRangeLength[]) = 0;
};

struct ICorProfilerCallback5 : ICorProfilerCallback4 {
  virtual HRESULT CLR_STDCALL ConditionalWeakTableElementReferences(ULONG cRootRefs,
                                                                    ObjectID keyRefIds[],
                                                                    ObjectID valueRefIds[],
                                                                    GCHandleID rootIds[]) = 0;
};

struct ICorProfilerCallback6 : ICorProfilerCallback5 {
  // Not raised by CoreCLR.
  virtual HRESULT CLR_STDCALL GetAssemblyReferences(
      const WCHAR* wszAssemblyPath, ICorProfilerAssemblyReferenceProvider* pAsmRefProvider) = 0;
};

struct ICorProfilerCallback7 : ICorProfilerCallback6 {
  virtual HRESULT CLR_STDCALL ModuleInMemorySymbolsUpdated(ModuleID moduleId) = 0;
};

struct ICorProfilerCallback8 : ICorProfilerCallback7 {
  // IL stubs and LCG methods: no metadata behind these FunctionIDs.
  virtual HRESULT CLR_STDCALL DynamicMethodJITCompilationStarted(FunctionID functionId,
                                                                 BOOL fIsSafeToBlock,
                                                                 LPCBYTE pILHeader,
                                                                 ULONG cbILHeader) = 0;
  virtual HRESULT CLR_STDCALL DynamicMethodJITCompilationFinished(FunctionID functionId,
                                                                  HRESULT hrStatus,
                                                                  BOOL fIsSafeToBlock) = 0;
};

struct ICorProfilerCallback9 : ICorProfilerCallback8 {
  virtual HRESULT CLR_STDCALL DynamicMethodUnloaded(FunctionID functionId) = 0;
};

struct ICorProfilerCallback10 : ICorProfilerCallback9 {
  // Every pointer argument is only valid for the duration of the call.
  virtual HRESULT CLR_STDCALL EventPipeEventDelivered(EVENTPIPE_PROVIDER provider, DWORD eventId,
                                                      DWORD eventVersion, ULONG cbMetadataBlob,
                                                      LPCBYTE metadataBlob, ULONG cbEventData,
                                                      LPCBYTE eventData, LPCGUID pActivityId,
                                                      LPCGUID pRelatedActivityId,
                                                      ThreadID eventThread, ULONG numStackFrames,
                                                      UINT_PTR stackFrames[]) = 0;
  virtual HRESULT CLR_STDCALL EventPipeProviderCreated(EVENTPIPE_PROVIDER provider) = 0;
};

struct ICorProfilerCallback11 : ICorProfilerCallback10 {
  // Asked of notification profilers (CORECLR_ENABLE_NOTIFICATION_PROFILERS) before Initialize.
  virtual HRESULT CLR_STDCALL LoadAsNotificationOnly(BOOL* pbNotificationOnly) = 0;
};

// ---- Info: implemented by the runtime, called by the profiler. Free-threaded. ----

struct ICorProfilerInfo : IUnknown {
  virtual HRESULT CLR_STDCALL GetClassFromObject(ObjectID objectId, ClassID* pClassId) = 0;
  virtual HRESULT CLR_STDCALL GetClassFromToken(ModuleID moduleId, mdTypeDef typeDef,
                                                ClassID* pClassId) = 0;
  virtual HRESULT CLR_STDCALL GetCodeInfo(FunctionID functionId, LPCBYTE* pStart,
                                          ULONG* pcSize) = 0;
  virtual HRESULT CLR_STDCALL GetEventMask(DWORD* pdwEvents) = 0;
  // Not async-signal-safe: call it from a normal thread, never from a signal handler.
  virtual HRESULT CLR_STDCALL GetFunctionFromIP(LPCBYTE ip, FunctionID* pFunctionId) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionFromToken(ModuleID moduleId, mdToken token,
                                                   FunctionID* pFunctionId) = 0;
  virtual HRESULT CLR_STDCALL GetHandleFromThread(ThreadID threadId, HANDLE* phThread) = 0;
  virtual HRESULT CLR_STDCALL GetObjectSize(ObjectID objectId, ULONG* pcSize) = 0;
  virtual HRESULT CLR_STDCALL IsArrayClass(ClassID classId, CorElementType* pBaseElemType,
                                           ClassID* pBaseClassId, ULONG* pcRank) = 0;
  // The OS thread id (the Linux tid) of a managed thread.
  virtual HRESULT CLR_STDCALL GetThreadInfo(ThreadID threadId, DWORD* pdwWin32ThreadId) = 0;
  virtual HRESULT CLR_STDCALL GetCurrentThreadID(ThreadID* pThreadId) = 0;
  virtual HRESULT CLR_STDCALL GetClassIDInfo(ClassID classId, ModuleID* pModuleId,
                                             mdTypeDef* pTypeDefToken) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionInfo(FunctionID functionId, ClassID* pClassId,
                                              ModuleID* pModuleId, mdToken* pToken) = 0;
  virtual HRESULT CLR_STDCALL SetEventMask(DWORD dwEvents) = 0;
  virtual HRESULT CLR_STDCALL SetEnterLeaveFunctionHooks(FunctionEnter* pFuncEnter,
                                                         FunctionLeave* pFuncLeave,
                                                         FunctionTailcall* pFuncTailcall) = 0;
  virtual HRESULT CLR_STDCALL SetFunctionIDMapper(FunctionIDMapper* pFunc) = 0;
  virtual HRESULT CLR_STDCALL GetTokenAndMetaDataFromFunction(FunctionID functionId, REFIID riid,
                                                              IUnknown** ppImport,
                                                              mdToken* pToken) = 0;
  virtual HRESULT CLR_STDCALL GetModuleInfo(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress,
                                            ULONG cchName, ULONG* pcchName, WCHAR szName[],
                                            AssemblyID* pAssemblyId) = 0;
  // dwOpenFlags: ofRead or ofWrite. Resource-only modules give S_FALSE and no interface.
  virtual HRESULT CLR_STDCALL GetModuleMetaData(ModuleID moduleId, DWORD dwOpenFlags, REFIID riid,
                                                IUnknown** ppOut) = 0;
  virtual HRESULT CLR_STDCALL GetILFunctionBody(ModuleID moduleId, mdMethodDef methodId,
                                                LPCBYTE* ppMethodHeader, ULONG* pcbMethodSize) = 0;
  virtual HRESULT CLR_STDCALL GetILFunctionBodyAllocator(ModuleID moduleId,
                                                         IMethodMalloc** ppMalloc) = 0;
  virtual HRESULT CLR_STDCALL SetILFunctionBody(ModuleID moduleId, mdMethodDef methodid,
                                                LPCBYTE pbNewILMethodHeader) = 0;
  virtual HRESULT CLR_STDCALL GetAppDomainInfo(AppDomainID appDomainId, ULONG cchName,
                                               ULONG* pcchName, WCHAR szName[],
                                               ProcessID* pProcessId) = 0;
  virtual HRESULT CLR_STDCALL GetAssemblyInfo(AssemblyID assemblyId, ULONG cchName, ULONG* pcchName,
                                              WCHAR szName[], AppDomainID* pAppDomainId,
                                              ModuleID* pModuleId) = 0;
  virtual HRESULT CLR_STDCALL SetFunctionReJIT(FunctionID functionId) = 0;  // always E_NOTIMPL
  virtual HRESULT CLR_STDCALL ForceGC() = 0;
  virtual HRESULT CLR_STDCALL SetILInstrumentedCodeMap(FunctionID functionId, BOOL fStartJit,
                                                       ULONG cILMapEntries,
                                                       COR_IL_MAP rgILMapEntries[]) = 0;
  virtual HRESULT CLR_STDCALL GetInprocInspectionInterface(IUnknown** ppicd) = 0;    // deprecated
  virtual HRESULT CLR_STDCALL GetInprocInspectionIThisThread(IUnknown** ppicd) = 0;  // deprecated
  virtual HRESULT CLR_STDCALL GetThreadContext(ThreadID threadId, ContextID* pContextId) = 0;
  virtual HRESULT CLR_STDCALL BeginInprocDebugging(BOOL fThisThreadOnly,
                                                   DWORD* pdwProfilerContext) = 0;  // deprecated
  virtual HRESULT CLR_STDCALL EndInprocDebugging(DWORD dwProfilerContext) = 0;      // deprecated
  virtual HRESULT CLR_STDCALL GetILToNativeMapping(FunctionID functionId, ULONG32 cMap,
                                                   ULONG32* pcMap,
                                                   COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
};

struct ICorProfilerInfo2 : ICorProfilerInfo {
  // Other threads' stacks only after SuspendRuntime on Linux/macOS (no thread hijacking there).
  virtual HRESULT CLR_STDCALL DoStackSnapshot(ThreadID thread, StackSnapshotCallback* callback,
                                              ULONG32 infoFlags, void* clientData, BYTE context[],
                                              ULONG32 contextSize) = 0;
  virtual HRESULT CLR_STDCALL SetEnterLeaveFunctionHooks2(FunctionEnter2* pFuncEnter,
                                                          FunctionLeave2* pFuncLeave,
                                                          FunctionTailcall2* pFuncTailcall) = 0;
  // frameInfo 0 is allowed; type arguments may then come back as System.Object.
  virtual HRESULT CLR_STDCALL GetFunctionInfo2(FunctionID funcId, COR_PRF_FRAME_INFO frameInfo,
                                               ClassID* pClassId, ModuleID* pModuleId,
                                               mdToken* pToken, ULONG32 cTypeArgs,
                                               ULONG32* pcTypeArgs, ClassID typeArgs[]) = 0;
  virtual HRESULT CLR_STDCALL GetStringLayout(ULONG* pBufferLengthOffset,
                                              ULONG* pStringLengthOffset, ULONG* pBufferOffset) = 0;
  virtual HRESULT CLR_STDCALL GetClassLayout(ClassID classID, COR_FIELD_OFFSET rFieldOffset[],
                                             ULONG cFieldOffset, ULONG* pcFieldOffset,
                                             ULONG* pulClassSize) = 0;
  virtual HRESULT CLR_STDCALL GetClassIDInfo2(ClassID classId, ModuleID* pModuleId,
                                              mdTypeDef* pTypeDefToken, ClassID* pParentClassId,
                                              ULONG32 cNumTypeArgs, ULONG32* pcNumTypeArgs,
                                              ClassID typeArgs[]) = 0;
  virtual HRESULT CLR_STDCALL GetCodeInfo2(FunctionID functionID, ULONG32 cCodeInfos,
                                           ULONG32* pcCodeInfos, COR_PRF_CODE_INFO codeInfos[]) = 0;
  virtual HRESULT CLR_STDCALL GetClassFromTokenAndTypeArgs(ModuleID moduleID, mdTypeDef typeDef,
                                                           ULONG32 cTypeArgs, ClassID typeArgs[],
                                                           ClassID* pClassID) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionFromTokenAndTypeArgs(ModuleID moduleID,
                                                              mdMethodDef funcDef, ClassID classId,
                                                              ULONG32 cTypeArgs, ClassID typeArgs[],
                                                              FunctionID* pFunctionID) = 0;
  virtual HRESULT CLR_STDCALL EnumModuleFrozenObjects(ModuleID moduleID,
                                                      ICorProfilerObjectEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetArrayObjectInfo(ObjectID objectId, ULONG32 cDimensions,
                                                 ULONG32 pDimensionSizes[],
                                                 int pDimensionLowerBounds[], BYTE** ppData) = 0;
  virtual HRESULT CLR_STDCALL GetBoxClassLayout(ClassID classId, ULONG32* pBufferOffset) = 0;
  virtual HRESULT CLR_STDCALL GetThreadAppDomain(ThreadID threadId, AppDomainID* pAppDomainId) = 0;
  virtual HRESULT CLR_STDCALL GetRVAStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                  void** ppAddress) = 0;
  virtual HRESULT CLR_STDCALL GetAppDomainStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                        AppDomainID appDomainId,
                                                        void** ppAddress) = 0;
  virtual HRESULT CLR_STDCALL GetThreadStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                     ThreadID threadId, void** ppAddress) = 0;
  virtual HRESULT CLR_STDCALL GetContextStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                      ContextID contextId, void** ppAddress) = 0;
  virtual HRESULT CLR_STDCALL GetStaticFieldInfo(ClassID classId, mdFieldDef fieldToken,
                                                 COR_PRF_STATIC_TYPE* pFieldInfo) = 0;
  virtual HRESULT CLR_STDCALL GetGenerationBounds(ULONG cObjectRanges, ULONG* pcObjectRanges,
                                                  COR_PRF_GC_GENERATION_RANGE ranges[]) = 0;
  virtual HRESULT CLR_STDCALL GetObjectGeneration(ObjectID objectId,
                                                  COR_PRF_GC_GENERATION_RANGE* range) = 0;
  virtual HRESULT CLR_STDCALL GetNotifiedExceptionClauseInfo(COR_PRF_EX_CLAUSE_INFO* pinfo) = 0;
};

struct ICorProfilerInfo3 : ICorProfilerInfo2 {
  virtual HRESULT CLR_STDCALL EnumJITedFunctions(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL RequestProfilerDetach(DWORD dwExpectedCompletionMilliseconds) = 0;
  virtual HRESULT CLR_STDCALL SetFunctionIDMapper2(FunctionIDMapper2* pFunc, void* clientData) = 0;
  virtual HRESULT CLR_STDCALL GetStringLayout2(ULONG* pStringLengthOffset,
                                               ULONG* pBufferOffset) = 0;
  virtual HRESULT CLR_STDCALL SetEnterLeaveFunctionHooks3(FunctionEnter3* pFuncEnter3,
                                                          FunctionLeave3* pFuncLeave3,
                                                          FunctionTailcall3* pFuncTailcall3) = 0;
  virtual HRESULT CLR_STDCALL SetEnterLeaveFunctionHooks3WithInfo(
      FunctionEnter3WithInfo* pFuncEnter3WithInfo, FunctionLeave3WithInfo* pFuncLeave3WithInfo,
      FunctionTailcall3WithInfo* pFuncTailcall3WithInfo) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionEnter3Info(
      FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO* pFrameInfo,
      ULONG* pcbArgumentInfo, COR_PRF_FUNCTION_ARGUMENT_INFO* pArgumentInfo) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionLeave3Info(
      FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO* pFrameInfo,
      COR_PRF_FUNCTION_ARGUMENT_RANGE* pRetvalRange) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionTailcall3Info(FunctionID functionId,
                                                       COR_PRF_ELT_INFO eltInfo,
                                                       COR_PRF_FRAME_INFO* pFrameInfo) = 0;
  virtual HRESULT CLR_STDCALL EnumModules(ICorProfilerModuleEnum** ppEnum) = 0;
  // Any out pointer may be null, except pcchVersionString when szVersionString is given.
  virtual HRESULT CLR_STDCALL GetRuntimeInformation(
      USHORT* pClrInstanceId, COR_PRF_RUNTIME_TYPE* pRuntimeType, USHORT* pMajorVersion,
      USHORT* pMinorVersion, USHORT* pBuildNumber, USHORT* pQFEVersion, ULONG cchVersionString,
      ULONG* pcchVersionString, WCHAR szVersionString[]) = 0;
  virtual HRESULT CLR_STDCALL GetThreadStaticAddress2(ClassID classId, mdFieldDef fieldToken,
                                                      AppDomainID appDomainId, ThreadID threadId,
                                                      void** ppAddress) = 0;
  virtual HRESULT CLR_STDCALL GetAppDomainsContainingModule(ModuleID moduleId,
                                                            ULONG32 cAppDomainIds,
                                                            ULONG32* pcAppDomainIds,
                                                            AppDomainID appDomainIds[]) = 0;
  virtual HRESULT CLR_STDCALL GetModuleInfo2(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress,
                                             ULONG cchName, ULONG* pcchName, WCHAR szName[],
                                             AssemblyID* pAssemblyId, DWORD* pdwModuleFlags) = 0;
};

struct ICorProfilerInfo4 : ICorProfilerInfo3 {
  virtual HRESULT CLR_STDCALL EnumThreads(ICorProfilerThreadEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL InitializeCurrentThread() = 0;
  virtual HRESULT CLR_STDCALL RequestReJIT(ULONG cFunctions, ModuleID moduleIds[],
                                           mdMethodDef methodIds[]) = 0;
  virtual HRESULT CLR_STDCALL RequestRevert(ULONG cFunctions, ModuleID moduleIds[],
                                            mdMethodDef methodIds[], HRESULT status[]) = 0;
  virtual HRESULT CLR_STDCALL GetCodeInfo3(FunctionID functionID, ReJITID reJitId,
                                           ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                                           COR_PRF_CODE_INFO codeInfos[]) = 0;
  virtual HRESULT CLR_STDCALL GetFunctionFromIP2(LPCBYTE ip, FunctionID* pFunctionId,
                                                 ReJITID* pReJitId) = 0;
  virtual HRESULT CLR_STDCALL GetReJITIDs(FunctionID functionId, ULONG cReJitIds, ULONG* pcReJitIds,
                                          ReJITID reJitIds[]) = 0;
  virtual HRESULT CLR_STDCALL GetILToNativeMapping2(FunctionID functionId, ReJITID reJitId,
                                                    ULONG32 cMap, ULONG32* pcMap,
                                                    COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
  virtual HRESULT CLR_STDCALL EnumJITedFunctions2(ICorProfilerFunctionEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetObjectSize2(ObjectID objectId, SIZE_T* pcSize) = 0;
};

struct ICorProfilerInfo5 : ICorProfilerInfo4 {
  virtual HRESULT CLR_STDCALL GetEventMask2(DWORD* pdwEventsLow, DWORD* pdwEventsHigh) = 0;
  virtual HRESULT CLR_STDCALL SetEventMask2(DWORD dwEventsLow, DWORD dwEventsHigh) = 0;
};

struct ICorProfilerInfo6 : ICorProfilerInfo5 {
  virtual HRESULT CLR_STDCALL EnumNgenModuleMethodsInliningThisMethod(
      ModuleID inlinersModuleId, ModuleID inlineeModuleId, mdMethodDef inlineeMethodId,
      BOOL* incompleteData, ICorProfilerMethodEnum** ppEnum) = 0;
};

struct ICorProfilerInfo7 : ICorProfilerInfo6 {
  virtual HRESULT CLR_STDCALL ApplyMetaData(ModuleID moduleId) = 0;
  virtual HRESULT CLR_STDCALL GetInMemorySymbolsLength(ModuleID moduleId,
                                                       DWORD* pCountSymbolBytes) = 0;
  virtual HRESULT CLR_STDCALL ReadInMemorySymbols(ModuleID moduleId, DWORD symbolsReadOffset,
                                                  BYTE* pSymbolBytes, DWORD countSymbolBytes,
                                                  DWORD* pCountSymbolBytesRead) = 0;
};

struct ICorProfilerInfo8 : ICorProfilerInfo7 {
  virtual HRESULT CLR_STDCALL IsFunctionDynamic(FunctionID functionId, BOOL* isDynamic) = 0;
  // Like GetFunctionFromIP2 but also resolves IL stubs and LCG methods.
  virtual HRESULT CLR_STDCALL GetFunctionFromIP3(LPCBYTE ip, FunctionID* functionId,
                                                 ReJITID* pReJitId) = 0;
  virtual HRESULT CLR_STDCALL GetDynamicFunctionInfo(FunctionID functionId, ModuleID* moduleId,
                                                     PCCOR_SIGNATURE* ppvSig, ULONG* pbSig,
                                                     ULONG cchName, ULONG* pcchName,
                                                     WCHAR wszName[]) = 0;
};

struct ICorProfilerInfo9 : ICorProfilerInfo8 {
  virtual HRESULT CLR_STDCALL GetNativeCodeStartAddresses(FunctionID functionID, ReJITID reJitId,
                                                          ULONG32 cCodeStartAddresses,
                                                          ULONG32* pcCodeStartAddresses,
                                                          UINT_PTR codeStartAddresses[]) = 0;
  virtual HRESULT CLR_STDCALL GetILToNativeMapping3(UINT_PTR pNativeCodeStartAddress, ULONG32 cMap,
                                                    ULONG32* pcMap,
                                                    COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
  // Code blocks of one jitted version (tiered compilation gives a method several).
  virtual HRESULT CLR_STDCALL GetCodeInfo4(UINT_PTR pNativeCodeStartAddress, ULONG32 cCodeInfos,
                                           ULONG32* pcCodeInfos, COR_PRF_CODE_INFO codeInfos[]) = 0;
};

struct ICorProfilerInfo10 : ICorProfilerInfo9 {
  virtual HRESULT CLR_STDCALL EnumerateObjectReferences(ObjectID objectId,
                                                        ObjectReferenceCallback callback,
                                                        void* clientData) = 0;
  virtual HRESULT CLR_STDCALL IsFrozenObject(ObjectID objectId, BOOL* pbFrozen) = 0;
  virtual HRESULT CLR_STDCALL GetLOHObjectSizeThreshold(DWORD* pThreshold) = 0;
  virtual HRESULT CLR_STDCALL RequestReJITWithInliners(DWORD dwRejitFlags, ULONG cFunctions,
                                                       ModuleID moduleIds[],
                                                       mdMethodDef methodIds[]) = 0;
  // Stops every managed thread at a safe point, without a GC.
  virtual HRESULT CLR_STDCALL SuspendRuntime() = 0;
  virtual HRESULT CLR_STDCALL ResumeRuntime() = 0;
};

struct ICorProfilerInfo11 : ICorProfilerInfo10 {
  // Note: <windows.h> turns these two names into ...W macros; harmless as long as it does so
  // consistently for both the declaration and the call.
  virtual HRESULT CLR_STDCALL GetEnvironmentVariable(const WCHAR* szName, ULONG cchValue,
                                                     ULONG* pcchValue, WCHAR szValue[]) = 0;
  virtual HRESULT CLR_STDCALL SetEnvironmentVariable(const WCHAR* szName, const WCHAR* szValue) = 0;
};

struct ICorProfilerInfo12 : ICorProfilerInfo11 {
  // Events of the session arrive at ICorProfilerCallback10::EventPipeEventDelivered; needs
  // COR_PRF_HIGH_MONITOR_EVENT_PIPE in the high event mask.
  virtual HRESULT CLR_STDCALL EventPipeStartSession(
      UINT32 cProviderConfigs, COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[],
      BOOL requestRundown, EVENTPIPE_SESSION* pSession) = 0;
  // The config is passed by value (a 32-byte struct on 64-bit targets).
  virtual HRESULT CLR_STDCALL EventPipeAddProviderToSession(
      EVENTPIPE_SESSION session, COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig) = 0;
  virtual HRESULT CLR_STDCALL EventPipeStopSession(EVENTPIPE_SESSION session) = 0;
  virtual HRESULT CLR_STDCALL EventPipeCreateProvider(const WCHAR* providerName,
                                                      EVENTPIPE_PROVIDER* pProvider) = 0;
  virtual HRESULT CLR_STDCALL EventPipeGetProviderInfo(EVENTPIPE_PROVIDER provider, ULONG cchName,
                                                       ULONG* pcchName, WCHAR providerName[]) = 0;
  virtual HRESULT CLR_STDCALL EventPipeDefineEvent(
      EVENTPIPE_PROVIDER provider, const WCHAR* eventName, UINT32 eventID, UINT64 keywords,
      UINT32 eventVersion, UINT32 level, UINT8 opcode, BOOL needStack, UINT32 cParamDescs,
      COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[], EVENTPIPE_EVENT* pEvent) = 0;
  virtual HRESULT CLR_STDCALL EventPipeWriteEvent(EVENTPIPE_EVENT event, UINT32 cData,
                                                  COR_PRF_EVENT_DATA data[], LPCGUID pActivityId,
                                                  LPCGUID pRelatedActivityId) = 0;
};

struct ICorProfilerInfo13 : ICorProfilerInfo12 {
  virtual HRESULT CLR_STDCALL CreateHandle(ObjectID object, COR_PRF_HANDLE_TYPE type,
                                           ObjectHandleID* pHandle) = 0;
  virtual HRESULT CLR_STDCALL DestroyHandle(ObjectHandleID handle) = 0;
  virtual HRESULT CLR_STDCALL GetObjectIDFromHandle(ObjectHandleID handle, ObjectID* pObject) = 0;
};

struct ICorProfilerInfo14 : ICorProfilerInfo13 {
  virtual HRESULT CLR_STDCALL EnumerateNonGCObjects(ICorProfilerObjectEnum** ppEnum) = 0;
  virtual HRESULT CLR_STDCALL GetNonGCHeapBounds(ULONG cObjectRanges, ULONG* pcObjectRanges,
                                                 COR_PRF_NONGC_HEAP_RANGE ranges[]) = 0;
  virtual HRESULT CLR_STDCALL EventPipeCreateProvider2(const WCHAR* providerName,
                                                       EventPipeProviderCallback* pCallback,
                                                       EVENTPIPE_PROVIDER* pProvider) = 0;
};

// The newest Info interface in .NET 9 and .NET 10.
struct ICorProfilerInfo15 : ICorProfilerInfo14 {
  virtual HRESULT CLR_STDCALL EnumerateGCHeapObjects(ObjectCallback callback,
                                                     void* callbackState) = 0;
};

// ---- Interface IDs, in the registry form used by corprof.idl. ----

inline constexpr GUID IID_ICorProfilerCallback =
    guid_from_string("176FBED1-A55C-4796-98CA-A9DA0EF883E7");
inline constexpr GUID IID_ICorProfilerCallback2 =
    guid_from_string("8A8CC829-CCF2-49FE-BBAE-0F022228071A");
inline constexpr GUID IID_ICorProfilerCallback3 =
    guid_from_string("4FD2ED52-7731-4B8D-9469-03D2CC3086C5");
inline constexpr GUID IID_ICorProfilerCallback4 =
    guid_from_string("7B63B2E3-107D-4D48-B2F6-F61E229470D2");
inline constexpr GUID IID_ICorProfilerCallback5 =
    guid_from_string("8DFBA405-8C9F-45F8-BFFA-83B14CEF78B5");
inline constexpr GUID IID_ICorProfilerCallback6 =
    guid_from_string("FC13DF4B-4448-4F4F-950C-BA8D19D00C36");
inline constexpr GUID IID_ICorProfilerCallback7 =
    guid_from_string("F76A2DBA-1D52-4539-866C-2AA518F9EFC3");
inline constexpr GUID IID_ICorProfilerCallback8 =
    guid_from_string("5BED9B15-C079-4D47-BFE2-215A140C07E0");
inline constexpr GUID IID_ICorProfilerCallback9 =
    guid_from_string("27583EC3-C8F5-482F-8052-194B8CE4705A");
inline constexpr GUID IID_ICorProfilerCallback10 =
    guid_from_string("CEC5B60E-C69C-495F-87F6-84D28EE16FFB");
inline constexpr GUID IID_ICorProfilerCallback11 =
    guid_from_string("42350846-AAED-47F7-B128-FD0C98881CDE");

inline constexpr GUID IID_ICorProfilerInfo =
    guid_from_string("28B5557D-3F3F-48B4-90B2-5F9EEA2F6C48");
inline constexpr GUID IID_ICorProfilerInfo2 =
    guid_from_string("CC0935CD-A518-487D-B0BB-A93214E65478");
inline constexpr GUID IID_ICorProfilerInfo3 =
    guid_from_string("B555ED4F-452A-4E54-8B39-B5360BAD32A0");
inline constexpr GUID IID_ICorProfilerInfo4 =
    guid_from_string("0D8FDCAA-6257-47BF-B1BF-94DAC88466EE");
inline constexpr GUID IID_ICorProfilerInfo5 =
    guid_from_string("07602928-CE38-4B83-81E7-74ADAF781214");
inline constexpr GUID IID_ICorProfilerInfo6 =
    guid_from_string("F30A070D-BFFB-46A7-B1D8-8781EF7B698A");
inline constexpr GUID IID_ICorProfilerInfo7 =
    guid_from_string("9AEECC0D-63E0-4187-8C00-E312F503F663");
inline constexpr GUID IID_ICorProfilerInfo8 =
    guid_from_string("C5AC80A6-782E-4716-8044-39598C60CFBF");
inline constexpr GUID IID_ICorProfilerInfo9 =
    guid_from_string("008170DB-F8CC-4796-9A51-DC8AA0B47012");
inline constexpr GUID IID_ICorProfilerInfo10 =
    guid_from_string("2F1B5152-C869-40C9-AA5F-3ABE026BD720");
inline constexpr GUID IID_ICorProfilerInfo11 =
    guid_from_string("06398876-8987-4154-B621-40A00D6E4D04");
inline constexpr GUID IID_ICorProfilerInfo12 =
    guid_from_string("27B24CCD-1CB1-47C5-96EE-98190DC30959");
inline constexpr GUID IID_ICorProfilerInfo13 =
    guid_from_string("6E6C7EE2-0701-4EC2-9D29-2E8733B66934");
inline constexpr GUID IID_ICorProfilerInfo14 =
    guid_from_string("F460E352-D76D-4FE9-835F-F6AF9D6E862D");
inline constexpr GUID IID_ICorProfilerInfo15 =
    guid_from_string("B446462D-BD22-41DD-872D-DC714C49EB56");

inline constexpr GUID IID_ICorProfilerObjectEnum =
    guid_from_string("2C6269BD-2D13-4321-AE12-6686365FD6AF");
inline constexpr GUID IID_ICorProfilerFunctionEnum =
    guid_from_string("FF71301A-B994-429D-A10B-B345A65280EF");
inline constexpr GUID IID_ICorProfilerModuleEnum =
    guid_from_string("B0266D75-2081-4493-AF7F-028BA34DB891");
inline constexpr GUID IID_ICorProfilerThreadEnum =
    guid_from_string("571194F7-25ED-419F-AA8B-7016B3159701");
inline constexpr GUID IID_ICorProfilerMethodEnum =
    guid_from_string("FCCEE788-0088-454B-A811-C99F298D1942");
inline constexpr GUID IID_IMethodMalloc = guid_from_string("A0EFB28B-6EE2-4D7B-B983-A75EF7BEEDB8");
inline constexpr GUID IID_ICorProfilerFunctionControl =
    guid_from_string("F0963021-E1EA-4732-8581-E01B0BD3C0C6");
inline constexpr GUID IID_ICorProfilerAssemblyReferenceProvider =
    guid_from_string("66A78C24-2EEF-4F65-B45F-DD1D8038BF3C");

}  // namespace clr
