#include "shim/live_handles.h"

#include <cstring>

namespace clrscope {

using namespace clr;

namespace {

uint64_t create_weak(void* context, uint64_t object) {
  auto* info = static_cast<ICorProfilerInfo13*>(context);
  ObjectHandleID handle = nullptr;
  if (FAILED(info->CreateHandle(static_cast<ObjectID>(object), COR_PRF_HANDLE_TYPE_WEAK, &handle))) return 0;
  return reinterpret_cast<uint64_t>(handle);
}

int check_weak(void* context, uint64_t handle, uint64_t type_id) {
  auto* info = static_cast<ICorProfilerInfo13*>(context);
  ObjectID object = 0;
  if (FAILED(info->GetObjectIDFromHandle(reinterpret_cast<ObjectHandleID>(handle), &object)) || object == 0) {
    return kHandleCollected;
  }
  if (type_id == 0) return kHandleAlive;
  // The object's first word is its MethodTable; the GC keeps flags in its low bits while it runs.
  uintptr_t method_table = 0;
  std::memcpy(&method_table, reinterpret_cast<const void*>(object), sizeof method_table);
  return (method_table & ~static_cast<uintptr_t>(3)) == type_id ? kHandleAlive : kHandleOtherType;
}

uint64_t object_of(void* context, uint64_t handle) {
  ObjectID object = 0;
  if (FAILED(static_cast<ICorProfilerInfo13*>(context)->GetObjectIDFromHandle(reinterpret_cast<ObjectHandleID>(handle), &object))) {
    return 0;
  }
  return static_cast<uint64_t>(object);
}

void destroy_weak(void* context, uint64_t handle) {
  static_cast<ICorProfilerInfo13*>(context)->DestroyHandle(reinterpret_cast<ObjectHandleID>(handle));
}

}  // namespace

HandleOps live_handle_ops(ICorProfilerInfo13* info) {
  HandleOps ops;
  ops.context = info;
  ops.create = create_weak;
  ops.check = check_weak;
  ops.destroy = destroy_weak;
  ops.object = object_of;
  return ops;
}

}  // namespace clrscope
