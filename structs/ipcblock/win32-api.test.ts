// The koffi declarations of the Win32 calls, checked without calling Windows: every prototype
// parses with koffi (types only, no DLL is loaded), and, where mingw-w64 is installed, a generated
// C++ file checks each one against the Windows SDK headers for 32- and 64-bit Windows: the same
// number of arguments, each of the same kind and size (pointer, signed/unsigned 8/32-bit, SIZE_T)
// and, on 32-bit, the __stdcall convention. On other systems than Windows nothing is bound.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import koffi from 'koffi';
import { IpcBlockError } from './ipc-block-error.js';
import { mapFrameworkBlock, mapNamedBlock } from './mapping.js';
import { WIN32_PROTOTYPES, type Win32FunctionName, win32Api } from './win32-api.js';

interface KoffiTypeInfo { name: string; primitive: string }
interface KoffiProto { proto: { name: string; arguments: { type: KoffiTypeInfo }[]; result: KoffiTypeInfo } }

const parsed = new Map<Win32FunctionName, KoffiProto>();
function parse(name: Win32FunctionName): KoffiProto {
  let p = parsed.get(name);
  if (p === undefined) {
    // Registers the prototype's name as a koffi type; prefixed so it clashes with nothing.
    p = koffi.proto(WIN32_PROTOTYPES[name].prototype.replace(` ${name}(`, ` clrscope_check_${name}(`)) as unknown as KoffiProto;
    parsed.set(name, p);
  }
  return p;
}

const NAMES = Object.keys(WIN32_PROTOTYPES) as Win32FunctionName[];

/** The kind of a koffi type, as the C++ check tests it. */
function kindOf(t: KoffiTypeInfo): string {
  if (t.name === 'size_t') return 'usize';
  switch (t.primitive) {
    case 'Void': return 'void';
    case 'Pointer': case 'String16': case 'String': return 'ptr';
    case 'Int32': return 'i32';
    case 'UInt32': return 'u32';
    case 'UInt8': return 'u8';
    default: throw new Error(`no C++ check for koffi type ${t.name} (${t.primitive})`);
  }
}

describe('WIN32_PROTOTYPES', () => {
  it('every prototype parses with koffi and names the function it is filed under, with __stdcall', () => {
    assert.equal(NAMES.length, 14);
    for (const name of NAMES) {
      const { prototype, dll } = WIN32_PROTOTYPES[name];
      assert.match(prototype, new RegExp(` __stdcall ${name}\\(`), name);
      assert.ok(dll === 'kernel32.dll' || dll === 'advapi32.dll');
      assert.equal(parse(name).proto.name, `clrscope_check_${name}`);
    }
  });

  it('declares the argument kinds the Win32 documentation gives', () => {
    const kinds = (name: Win32FunctionName): string => {
      const p = parse(name).proto;
      return `${kindOf(p.result)} (${p.arguments.map((a) => kindOf(a.type)).join(', ')})`;
    };
    assert.equal(kinds('CreateBoundaryDescriptorW'), 'ptr (ptr, u32)');
    assert.equal(kinds('AddSIDToBoundaryDescriptor'), 'i32 (ptr, ptr)');
    assert.equal(kinds('DeleteBoundaryDescriptor'), 'void (ptr)');
    assert.equal(kinds('OpenPrivateNamespaceW'), 'ptr (ptr, ptr)');
    assert.equal(kinds('ClosePrivateNamespace'), 'u8 (ptr, u32)');
    assert.equal(kinds('OpenFileMappingW'), 'ptr (u32, i32, ptr)');
    assert.equal(kinds('MapViewOfFile'), 'ptr (ptr, u32, u32, u32, usize)');
    assert.equal(kinds('UnmapViewOfFile'), 'i32 (ptr)');
    assert.equal(kinds('CreateWellKnownSid'), 'i32 (i32, ptr, ptr, ptr)');
    assert.equal(kinds('GetTokenInformation'), 'i32 (ptr, i32, ptr, u32, ptr)');
  });
});

describe('on other systems than Windows', { skip: process.platform === 'win32' ? 'this is Windows' : false }, () => {
  it('binds nothing and says why in one sentence', () => {
    for (const fn of [() => win32Api(), () => mapNamedBlock('Local\\clrscope-1', 2048), () => mapFrameworkBlock(1)]) {
      assert.throws(fn, (e: unknown) => e instanceof IpcBlockError && e.kind === 'missing' && /only on Windows\.$/.test(e.message));
    }
  });
});

// ---- The same prototypes against mingw-w64's Windows headers ----

const CHECK_HEADER = `#define WIN32_LEAN_AND_MEAN
#define _WIN32_WINNT 0x0A00
#include <windows.h>
#include <tuple>
#include <type_traits>

template <class F> struct Sig;
#if defined(_WIN64)
template <class R, class... A> struct Sig<R (*)(A...)> { using Ret = R; using Args = std::tuple<A...>; };
#else
// Only __stdcall functions match: a cdecl declaration would leave Sig incomplete.
template <class R, class... A> struct Sig<R (__stdcall *)(A...)> { using Ret = R; using Args = std::tuple<A...>; };
#endif

template <class T> constexpr bool is_void() { return std::is_void<T>::value; }
template <class T> constexpr bool is_ptr() { return std::is_pointer<T>::value; }
template <class T> constexpr bool is_i32() { return sizeof(T) == 4 && ((std::is_integral<T>::value && std::is_signed<T>::value) || std::is_enum<T>::value); }
template <class T> constexpr bool is_u32() { return sizeof(T) == 4 && std::is_integral<T>::value && std::is_unsigned<T>::value; }
template <class T> constexpr bool is_u8() { return sizeof(T) == 1 && std::is_integral<T>::value && std::is_unsigned<T>::value; }
template <class T> constexpr bool is_usize() { return sizeof(T) == sizeof(void *) && std::is_integral<T>::value && std::is_unsigned<T>::value; }
`;

function checkSource(): string {
  const lines = [CHECK_HEADER];
  for (const name of NAMES) {
    const p = parse(name).proto;
    lines.push(`using S_${name} = Sig<decltype(&${name})>;`);
    lines.push(`static_assert(std::tuple_size<S_${name}::Args>::value == ${p.arguments.length}, "${name}: argument count");`);
    lines.push(`static_assert(is_${kindOf(p.result)}<S_${name}::Ret>(), "${name}: result is not ${kindOf(p.result)}");`);
    p.arguments.forEach((a, i) => {
      lines.push(`static_assert(is_${kindOf(a.type)}<std::tuple_element<${i}, S_${name}::Args>::type>(), "${name}: argument ${i} is not ${kindOf(a.type)}");`);
    });
  }
  return lines.join('\n') + '\n';
}

for (const [compiler, bits] of [['x86_64-w64-mingw32-g++', 64], ['i686-w64-mingw32-g++', 32]] as const) {
  const present = spawnSync(compiler, ['--version'], { encoding: 'utf8' }).status === 0;
  describe(`the prototypes against ${bits}-bit Windows headers`, { skip: present ? false : `${compiler} is not installed` }, () => {
    it(`compile with ${compiler}: same arity, argument kinds and sizes${bits === 32 ? ', __stdcall' : ''}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'clrscope-win32-check-'));
      try {
        const file = join(dir, 'check.cpp');
        writeFileSync(file, checkSource());
        const r = spawnSync(compiler, ['-std=c++17', '-fsyntax-only', '-Werror', file], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it(`${compiler} does reject a prototype with a wrong argument kind (the check can fail)`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'clrscope-win32-check-'));
      try {
        const file = join(dir, 'check.cpp');
        writeFileSync(file, `${CHECK_HEADER}using S = Sig<decltype(&MapViewOfFile)>;\nstatic_assert(is_u32<std::tuple_element<4, S::Args>::type>() == (sizeof(void *) == 4), "SIZE_T is pointer-sized");\nstatic_assert(is_ptr<std::tuple_element<1, S::Args>::type>(), "deliberately wrong");\n`);
        const r = spawnSync(compiler, ['-std=c++17', '-fsyntax-only', file], { encoding: 'utf8' });
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /deliberately wrong/);
        assert.doesNotMatch(r.stderr, /SIZE_T is pointer-sized/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
