// The process picker's list: the discovery service's .NET processes in the contract's shape.

import type { ProcessInfo } from '../../../structs/api/contract.js';
import { listDotnetProcesses, processInfoOf, type DotnetProcess } from '../discovery/discovery.js';

/** A clause from discovery as the sentence the contract promises. */
function sentence(clause: string | null): string | null {
  if (clause === null || clause.trim() === '') return null;
  const text = clause.trim();
  const capital = text[0].toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function toProcessInfo(p: DotnetProcess): ProcessInfo {
  return processInfoOf(p, p.attachable && !p.eventPipeOnly ? null : sentence(p.reason));
}

export async function listProcesses(): Promise<ProcessInfo[]> {
  // Our own process is Node, not .NET, so it never shows up here.
  return (await listDotnetProcesses()).map(toProcessInfo);
}
