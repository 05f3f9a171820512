import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerIdIn, containerLabel, counterBlockPath, hostPathOf, insidePathOf, namespacesOf, parseCgroup, parseNsPids } from './namespaces.js';
import { muslIn } from './container-checks.js';

test('NSpid: outermost first, the process\'s own pid last; none before Linux 4.1', () => {
  assert.deepEqual(parseNsPids('Name:\tdotnet\nTgid:\t51234\nNSpid:\t51234\t1\nNSsid:\t51234\t1\n'), [51234, 1]);
  assert.deepEqual(parseNsPids('NSpid:\t777\n'), [777]);
  assert.equal(parseNsPids('Name:\tdotnet\nPid:\t777\n'), undefined);
});

test('the cgroup path: the v2 line, else the first hierarchy; the container id in it', () => {
  const docker = '0::/system.slice/docker-4f1c2a7d5e6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f.scope\n';
  assert.equal(parseCgroup(docker), '/system.slice/docker-4f1c2a7d5e6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f.scope');
  assert.equal(containerIdIn(parseCgroup(docker)), '4f1c2a7d5e6b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f');
  const v1 = '12:memory:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n11:cpu:/docker/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n';
  assert.equal(containerIdIn(parseCgroup(v1)), '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef');
  const kube = '0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.scope\n';
  assert.equal(containerIdIn(parseCgroup(kube)), 'a'.repeat(64));
  assert.equal(containerIdIn(parseCgroup('0::/user.slice/user-0.slice/session-3.scope\n')), undefined);
  assert.equal(parseCgroup(''), undefined);
});

test('this process shares its own namespaces: no root prefix, its pid as is, no container', () => {
  const ns = namespacesOf(process.pid);
  assert.equal(ns.nsPid, process.pid);
  assert.equal(ns.root, '');
  assert.equal(ns.otherMountNs, false);
  assert.equal(ns.readable, true);
  assert.equal(containerLabel(ns), undefined);
  assert.equal(counterBlockPath(process.pid), `/dev/shm/clrscope-${process.pid}`);
  assert.equal(hostPathOf(ns, '/tmp/x'), '/tmp/x');
  assert.equal(insidePathOf(ns, '/tmp/x'), '/tmp/x');
});

test('paths through another process\'s root, both ways; a host path outside it is refused', () => {
  const ns = { ...namespacesOf(process.pid), root: '/proc/51234/root', nsPid: 1, otherMountNs: true, otherPidNs: true, mountNs: 'mnt:[4026532712]' };
  assert.equal(hostPathOf(ns, '/tmp/clrscope-1/sock'), '/proc/51234/root/tmp/clrscope-1/sock');
  assert.equal(insidePathOf(ns, '/proc/51234/root/tmp/clrscope-1/sock'), '/tmp/clrscope-1/sock');
  assert.throws(() => insidePathOf(ns, '/tmp/clrscope-1/sock'));
  assert.equal(containerLabel(ns), 'mnt:4026532712');
  assert.equal(containerLabel({ ...ns, containerId: 'f'.repeat(64) }), 'ffffffffffff');
});

test('a process gone or never there: read as sharing ours, unreadable', () => {
  const ns = namespacesOf(0x7ffffffe);
  assert.equal(ns.root, '');
  assert.equal(ns.readable, false);
  assert.equal(ns.nsPid, 0x7ffffffe);
});

test('musl is known by its loader in the maps', () => {
  assert.equal(muslIn('7f0000000000-7f0000001000 r-xp 00000000 08:01 123 /lib/ld-musl-x86_64.so.1\n'), true);
  assert.equal(muslIn('7f0000000000-7f0000001000 r-xp 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libc.so.6\n'), false);
});
