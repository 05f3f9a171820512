#pragma once
// The live heap's handle operations on the runtime's ICorProfilerInfo13 (.NET 7+): weak handles
// (COR_PRF_HANDLE_TYPE_WEAK = 1), created on the allocating thread inside its allocation event
// and checked on the GC's thread in GarbageCollectionFinished.
//
// Facts relied on, with their sources:
// - ICorProfilerInfo13 = ICorProfilerInfo12 (ending with EventPipeWriteEvent) + CreateHandle(
//   ObjectID, COR_PRF_HANDLE_TYPE, ObjectHandleID*), DestroyHandle(ObjectHandleID),
//   GetObjectIDFromHandle(ObjectHandleID, ObjectID*), in that vtable order; IID
//   6E6C7EE2-0701-4EC2-9D29-2E8733B66934; enum WEAK 0x1, STRONG 0x2, PINNED 0x3 (corprof.idl as
//   projected in the Windows SDK metadata bindings, e.g. the D and AutoHotkey projections of
//   Windows.Win32.System.Diagnostics.ClrProfiling; Datadog's AotProcessor ICorProfilerInfo13.cs;
//   dotnet/docs cor-prf-handle-type-enumeration.md, "available since .NET 7"). On .NET 8, 9 and
//   10 every CreateHandle made here succeeded and every handle's object was the sampled type
//   (the profiler's log counts both; README "Live heap").
// - A weak handle does not keep its object alive; GetObjectIDFromHandle gives 0 once the object
//   was collected (the docs above; Datadog's LiveObjectsProvider.cpp relies on the same).
// - "It is safe for the profiler to inspect objects in their final locations when the
//   GarbageCollectionFinished method is called" (dotnet/docs, ICorProfilerCallback2::
//   GarbageCollectionFinished): where the sweep reads each survivor's first word.
// - The allocation events give the address the object is being put at, before the runtime has
//   written its MethodTable (Datadog's LiveObjectsProvider.cpp says so of AllocationTick and
//   writes the MethodTable itself before CreateHandle); the word there read 0 inside the event on
//   .NET 8 and 9 (AllocationTick v4) and 10 (AllocationSampled). clrscope does not write into the
//   program's memory: a weak handle is only an address in the handle table until a GC looks at
//   it, and no GC can run before the allocating thread, still in cooperative mode inside the
//   allocation, has finished the object. The first GC sweep checks that the object behind each
//   handle has the sampled type (its first word is its MethodTable) and drops any that does not
//   (counted; none were seen on .NET 8, 9 or 10, README "Live heap").
#include "clr/corprof.h"
#include "core/live_heap.h"

namespace clrscope {

// Ops bound to `info` (which must outlive them).
HandleOps live_handle_ops(clr::ICorProfilerInfo13* info);

}  // namespace clrscope
