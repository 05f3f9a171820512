import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_START_MONO, fixtureEncoder } from '../profile/fixture-stream.test-support.js';
import { recordingFromStream } from '../profile/recording-from-stream.js';
import { FunctionKind, SampleFlags } from '../wire/records.js';
import { isBlockingWait, poolBlocking } from './pool-blocking.js';

test('synchronous I/O is the blocking calls alone: the Async ones and their helpers return at once', () => {
  for (const name of [
    'System.Net.Sockets.Socket.Send', 'System.Net.Sockets.Socket.Receive', 'System.Net.Sockets.Socket.ReceiveFrom', 'System.Net.Sockets.Socket.Accept',
    'System.Net.Sockets.Socket.Connect', 'System.IO.FileStream.Read', 'System.IO.Stream.Write', 'System.IO.StreamReader.ReadToEnd', 'System.IO.StreamReader.ReadLine',
    'System.IO.RandomAccess.ReadAtOffset', 'System.Net.Sockets.NetworkStream.Read',
  ]) assert.equal(isBlockingWait(name), true, name);
  for (const name of [
    'System.Net.Sockets.Socket.SendAsync', 'System.Net.Sockets.Socket.ReceiveAsync', 'System.Net.Sockets.Socket.AcceptAsync', 'System.Net.Sockets.Socket.ConnectAsync',
    'System.Net.Sockets.Socket.SendAsyncForNetworkStream', 'System.Net.Sockets.Socket.ReceiveFromAsync', 'System.IO.Stream.ReadAsync', 'System.IO.FileStream.WriteAsync',
    'System.IO.StreamReader.ReadToEndAsync', 'System.IO.StreamWriter.FlushAsync', 'System.IO.RandomAccess.ReadAtOffsetAsync',
    'Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.Internal.SocketSender.SendAsync',
  ]) assert.equal(isBlockingWait(name), false, name);
});

test('the waits on tasks, monitors, handles and sleeps are blocking', () => {
  for (const name of [
    'System.Threading.Tasks.Task.Wait', 'System.Threading.Tasks.Task`1.get_Result', 'System.Runtime.CompilerServices.TaskAwaiter.GetResult',
    'System.Threading.Monitor.Wait', 'System.Threading.Monitor.Enter', 'System.Threading.WaitHandle.WaitOne', 'System.Threading.SemaphoreSlim.Wait',
    'System.Threading.Thread.Sleep',
  ]) assert.equal(isBlockingWait(name), true, name);
});

test('a lock taken under the runtime\'s stubs is the framework caller\'s, never the stub\'s; an async send is no blocked time', () => {
  // An MVC app's pool thread logging each request: Logger.Log -> an instantiating stub ->
  // ConsoleLoggerProcessor.Enqueue -> Monitor.Enter_Slowpath; another in Kestrel's SendAsync.
  const enc = fixtureEncoder();
  const fns: [number, number, string, string][] = [
    [20, FunctionKind.Managed, 'System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart', 'System.Private.CoreLib.dll'],
    [21, FunctionKind.Managed, 'Microsoft.Extensions.Logging.Logger.Log<System.__Canon>', 'Microsoft.Extensions.Logging.dll'],
    [22, FunctionKind.Managed, '[stub] IL_STUB_InstantiatingStub: LogLevel,EventId,Object,Exception,Object,Exception,string>', ''],
    [23, FunctionKind.Managed, 'Microsoft.Extensions.Logging.Console.ConsoleLoggerProcessor.Enqueue', 'Microsoft.Extensions.Logging.Console.dll'],
    [24, FunctionKind.Managed, 'System.Threading.Monitor.Enter_Slowpath', 'System.Private.CoreLib.dll'],
    [25, FunctionKind.Managed, 'Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.Internal.SocketSender.SendAsync', 'Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets.dll'],
    [26, FunctionKind.Managed, 'System.Net.Sockets.Socket.SendAsync', 'System.Net.Sockets.dll'],
  ];
  for (const [functionId, kind, name, module] of fns) enc.function({ functionId, kind, name, module, file: '' });
  enc.thread({ threadId: 9, osTid: 900, clrThreadId: 0xa9, mono: FIXTURE_START_MONO + 9000, name: '.NET TP Worker' });
  const at = (i: number): number => FIXTURE_START_MONO + 10_000 + i * 1000;
  enc.sample({ mono: at(0), threadId: 9, flags: SampleFlags.Wall, cpuNs: 0, wallNs: 10_000_000, frames: [24, 23, 22, 21, 22, 20] });
  enc.sample({ mono: at(1), threadId: 9, flags: SampleFlags.Wall, cpuNs: 0, wallNs: 10_000_000, frames: [26, 25, 20] });
  const b = poolBlocking(recordingFromStream([enc.bytes().slice()]));
  assert.deepEqual(b.sites.map((x) => [x.site, x.waitingOn, x.waitMs]), [['Microsoft.Extensions.Logging.Console.ConsoleLoggerProcessor.Enqueue', 'a lock', 10]]);
  assert.equal(b.poolThreads, 1);
});
