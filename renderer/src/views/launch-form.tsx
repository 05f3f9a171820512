// "Launch…": a command, its arguments as one line, the sampling interval, wall time on or off,
// async stacks, event samples (allocations, locks, exceptions), and whether the .NET processes the program starts are recorded too (on by default).

import { useState, type FormEvent, type ReactElement } from 'react';
import { splitArguments } from '../state/command-line.js';
import { commandLineOf } from '../../../structs/text/command-line.js';
import { userMessage } from '../state/user-message.js';
import { AsyncStacksSelect, asyncRequest, type AsyncStacksChoice } from './async-stacks-choice.js';
import { EventSwitches, useEventChoice } from './event-switches.js';
import { useAppState, useWorkstation } from './use-app-state.js';

interface Props {
  intervalMs: number;
  onIntervalChange(ms: number): void;
  /** The views keep only the session's last N minutes; null: all of it. */
  keepMinutes: number | null;
  onClose(): void;
}

export function LaunchForm({ intervalMs, onIntervalChange, keepMinutes, onClose }: Props): ReactElement {
  const ws = useWorkstation();
  const starting = useAppState((s) => s.starting);
  const [command, setCommand] = useState('dotnet');
  const [args, setArgs] = useState('');
  const [cwd, setCwd] = useState('');
  const [wall, setWall] = useState(true);
  const [asyncStacks, setAsyncStacks] = useState<AsyncStacksChoice>('off');
  const [children, setChildren] = useState(true);
  const [events, setEvents] = useEventChoice();

  // Exactly what will run, as the session will be named: Launch runs any command, so it is shown first.
  let preview: string;
  try {
    preview = `Runs: ${commandLineOf(command.trim(), splitArguments(args))}${cwd.trim() !== '' ? ` (in ${cwd.trim()})` : ''}`;
  } catch (err) {
    preview = userMessage(err);
  }

  const submit = (e: FormEvent): void => {
    e.preventDefault();
    let list: string[];
    try {
      list = splitArguments(args);
    } catch (err) {
      ws.showError(userMessage(err));
      return;
    }
    if (command.trim() === '') {
      ws.showError('Say which program to launch.');
      return;
    }
    void ws.sessions.launch({ command: command.trim(), args: list, intervalMs, wall, children, ...events, ...asyncRequest(asyncStacks), ...(keepMinutes !== null ? { keepMinutes } : {}), ...(cwd.trim() !== '' ? { cwd: cwd.trim() } : {}) });
  };

  return (
    <form className="launch-form" onSubmit={submit} data-testid="launch-form">
      <label>
        Command
        <input value={command} onChange={(e) => setCommand(e.target.value)} data-testid="launch-command" spellCheck={false} />
      </label>
      <label className="wide">
        Arguments
        <input value={args} onChange={(e) => setArgs(e.target.value)} data-testid="launch-args" placeholder="MyService.dll --port 5000" spellCheck={false} />
      </label>
      <label>
        Working directory
        <input value={cwd} onChange={(e) => setCwd(e.target.value)} data-testid="launch-cwd" placeholder="(clrscope's own)" spellCheck={false} />
      </label>
      <label>
        Interval (ms)
        <input
          type="number" min={1} max={1000} value={intervalMs} className="narrow" data-testid="launch-interval"
          onChange={(e) => onIntervalChange(Math.min(1000, Math.max(1, Number(e.target.value) || 10)))}
        />
      </label>
      <label className="check">
        <input type="checkbox" checked={wall} onChange={(e) => setWall(e.target.checked)} data-testid="launch-wall" />
        wall time
      </label>
      <AsyncStacksSelect value={asyncStacks} onChange={setAsyncStacks} testId="launch-async" />
      <label className="check" title="Every .NET process the program starts is recorded too, each as its own process in this recording (a build's nodes, a service's workers). Off: only the first .NET process to connect.">
        <input type="checkbox" checked={children} onChange={(e) => setChildren(e.target.checked)} data-testid="launch-children" />
        child processes
      </label>
      <EventSwitches choice={events} onChange={setEvents} prefix="launch" />
      <output className="launch-preview" data-testid="launch-preview">{preview}</output>
      <div className="actions">
        <button type="submit" className="primary" disabled={starting} data-testid="launch-submit">Launch and record</button>
        <button type="button" onClick={onClose}>Cancel</button>
      </div>
    </form>
  );
}
