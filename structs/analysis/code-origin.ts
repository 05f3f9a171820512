// Whose code a frame is: the .NET runtime's and the C library's native code (folded into one
// `[runtime]` frame by default), the framework's assemblies, or the program's own code
// ("my code only"). Decided from file names, the only thing every format keeps.

import { FunctionKind } from '../wire/records.js';
import type { FunctionInfo } from '../profile/frame-label.js';

/**
 * Native files of the runtime, its host and the system libraries under it: CoreCLR and its
 * JIT, the runtime's native shims (libSystem.*.so, System.*.Native.dll), the host (dotnet,
 * hostfxr, hostpolicy), the C and C++ runtimes and the dynamic loader, the kernel's vDSO, and
 * clrscope's own profiler. Windows and macOS names too, for recordings made there.
 */
const RUNTIME_LIBRARIES: readonly RegExp[] = [
  /^lib(coreclr|clrjit|coreclrtraceptprovider|hostfxr|hostpolicy|clrscope|mscordaccore|mscordbi)\.(so|dylib)$/,
  /^libSystem\.[\w.]+\.(so|dylib)$/,
  /^lib(c|m|dl|rt|pthread|stdc\+\+|gcc_s|unwind|numa|lttng-ust\w*)\.so(\.[\d.]+)?$/,
  /^libc\+\+(abi)?\.(so|dylib)(\.[\d.]+)?$/,
  /^ld-(linux[\w.-]*|musl[\w.-]*)\.so(\.[\d.]+)?$/,
  /^linux-(vdso|gate)\.so(\.\d+)?$/,
  /^libsystem_[\w.]+\.dylib$/,
  /^dotnet(\.exe)?$/,
  /^(coreclr|clrjit|hostfxr|hostpolicy|clrscope|ntdll|kernel32|kernelbase|ucrtbase|msvcrt|vcruntime140\w*|msvcp140\w*)\.dll$/i,
  /^System\.[\w.]+\.Native\.dll$/,
];

export function isRuntimeLibrary(module: string): boolean {
  return RUNTIME_LIBRARIES.some((re) => re.test(module));
}

/** A native frame of the runtime or the C library (named or not): what `[runtime]` folds. */
export function isRuntimeNative(fn: FunctionInfo): boolean {
  return fn.kind === FunctionKind.Native && isRuntimeLibrary(fn.module);
}

/** Assembly names (without extension) that ship with .NET itself rather than with the program. */
const FRAMEWORK_ASSEMBLY = /^(System|Microsoft|Windows|Internal|runtime)(\.|$)|^(mscorlib|netstandard|WindowsBase|PresentationCore|PresentationFramework)$/;

/** The assembly name of a managed module file: `Demo.dll` → `Demo`. */
export function assemblyName(module: string): string {
  const base = module.replace(/^.*[\\/]/, '');
  return base.replace(/(\.ni)?\.(dll|exe)$/i, '');
}

/**
 * Whether a managed frame is the program's own code: its assembly is not one of .NET's own
 * (System.*, Microsoft.*, mscorlib, netstandard, …). Frames whose format kept no module (an
 * imported profile) are judged by the method's namespace the same way. Native and synthetic
 * frames are never the program's own.
 */
export function isOwnCode(fn: FunctionInfo): boolean {
  if (fn.kind !== FunctionKind.Managed) return false;
  if (fn.module !== '') return !FRAMEWORK_ASSEMBLY.test(assemblyName(fn.module));
  return !FRAMEWORK_ASSEMBLY.test(fn.name);
}
