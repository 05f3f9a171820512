// What a launched program wrote to stdout and stderr, as a scrolling console: it follows new
// lines while scrolled to the bottom, and stays where the user scrolled to otherwise.

import { memo, useCallback, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactElement, type WheelEvent } from 'react';
import { OUTPUT_LIMITS, type OutputStream, type SessionInfo } from '../../../structs/api/contract.js';
import { isLive } from '../state/app-state.js';
import { useAppState, useWorkstation } from './use-app-state.js';

const count = (n: number): string => n.toLocaleString('en');

/** Pixels from the bottom that still count as "at the bottom" (zoom and rounding leave fractions). */
const BOTTOM_SLACK_PX = 4;
const SCROLL_UP_KEYS = new Set(['ArrowUp', 'PageUp', 'Home']);

export function OutputView(): ReactElement {
  const ws = useWorkstation();
  // Re-render when lines arrive; they live in the controller's ProgramOutput.
  useAppState((s) => s.outputVersion);
  const sessionId = useAppState((s) => s.selectedSessionId);
  const session = useAppState((s) => s.sessions.find((x) => x.id === s.selectedSessionId));
  const shown = ws.output.get(sessionId);
  const boxRef = useRef<HTMLDivElement>(null);
  const [following, setFollowing] = useState(true);
  const followingRef = useRef(true);

  const follow = useCallback((on: boolean) => {
    followingRef.current = on;
    setFollowing(on);
  }, []);

  // Another session starts at its newest line (before the scroll below, which runs after this).
  useLayoutEffect(() => follow(true), [sessionId, follow]);

  // Before paint, so a followed console never shows a frame scrolled short of its new last line.
  // When not following, Chromium's scroll anchoring keeps the lines read in place as the oldest
  // ones are dropped above them.
  useLayoutEffect(() => {
    const box = boxRef.current;
    if (box !== null && followingRef.current) box.scrollTop = box.scrollHeight;
  });

  const onScroll = (): void => {
    const box = boxRef.current;
    if (box === null) return;
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight <= BOTTOM_SLACK_PX;
    if (atBottom !== followingRef.current) follow(atBottom);
  };

  // A scroll event comes a frame after the user moved, and new lines arriving in between would
  // pull the box back down before it is heard; the wheel and keys that scroll up say it at once.
  const onWheel = (e: WheelEvent<HTMLDivElement>): void => {
    if (e.deltaY < 0 && followingRef.current) follow(false);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (SCROLL_UP_KEYS.has(e.key) && followingRef.current) follow(false);
  };

  const partial = (['stdout', 'stderr'] as const).filter((stream) => shown.partial[stream] !== '');
  const empty = shown.lines.length === 0 && partial.length === 0;
  const hasStderr = partial.includes('stderr') || shown.lines.some((l) => l.stream === 'stderr');
  if (empty) {
    return <div className="output-view"><p className="empty" data-testid="output-empty">{emptySentence(session, shown.loaded)}</p></div>;
  }
  return (
    <div className="output-view">
      <div className="toolbar">
        <span className="hint grow" data-testid="output-count">
          {count(shown.lines.length)} {shown.lines.length === 1 ? 'line' : 'lines'}
          {hasStderr && <> · <span className="output-key">stderr lines are red</span></>}
        </span>
        {!following && (
          <button type="button" data-testid="output-follow" onClick={() => follow(true)}>Follow new output</button>
        )}
      </div>
      <div
        className="output-box" ref={boxRef} onScroll={onScroll} onWheel={onWheel} onKeyDown={onKeyDown} tabIndex={0}
        data-testid="output-box" data-following={following}
      >
        {shown.droppedLines > 0 && (
          <p className="output-dropped" data-testid="output-dropped">
            {count(shown.droppedLines)} earlier {shown.droppedLines === 1 ? 'line was' : 'lines were'} dropped: the workstation keeps a
            program's newest {count(OUTPUT_LIMITS.lines)} lines, at most {OUTPUT_LIMITS.bytes / 1024} KiB of them.
          </p>
        )}
        {shown.lines.map((line) => <OutputRow key={line.seq} stream={line.stream} text={line.text} />)}
        {partial.map((stream) => <OutputRow key={`partial-${stream}`} stream={stream} text={shown.partial[stream]} />)}
      </div>
    </div>
  );
}

// Memoized: a refresh re-renders only the rows that are new, not the thousands already shown.
const OutputRow = memo(function OutputRow({ stream, text }: { stream: OutputStream; text: string }): ReactElement {
  return <div className={`output-line ${stream}`} data-testid="output-line" data-stream={stream}>{text}</div>;
});

function emptySentence(session: SessionInfo | undefined, loaded: boolean): string {
  if (session === undefined) return 'Choose a recording to see its program\'s output.';
  if (session.source === 'attach') return 'No program output: this process was attached to, and its output goes wherever it was started from. clrscope shows the output of programs it launches.';
  if (session.source === 'file') return 'No program output: this recording was opened from a file, which holds no output.';
  if (!loaded) return 'Reading the program\'s output…';
  if (!isLive(session)) return 'The program wrote nothing to stdout or stderr.';
  return 'No output yet: what the program writes to stdout and stderr appears here.';
}
