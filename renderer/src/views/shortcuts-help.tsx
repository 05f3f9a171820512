// The keyboard's shortcuts in one overlay, opened with "?" anywhere but a text field (or the ?
// button in the top bar), closed with Esc or a click outside: the flame graph's keys
// (flame-keyboard.ts) and the tables' (virtual-table.tsx).

import { useEffect, useState, type ReactElement } from 'react';

const SHORTCUTS: readonly { group: string; keys: readonly [string, string][] }[] = [
  { group: 'Anywhere', keys: [['?', 'this list'], ['Esc', 'close it, or a menu']] },
  {
    group: 'Flame graph',
    keys: [
      ['↑ or +', 'zoom into the widest callee (↓ in an inverted graph)'],
      ['↓ or −', 'zoom out to the caller'],
      ['← →', 'the frame beside'],
      ['/', 'search (text, or /regex/)'],
      ['Enter, n', 'next match (Shift+Enter, N: previous)'],
      ['Backspace', 'back to the zoom before'],
      ['0 or Home', 'zoom out whole'],
    ],
  },
  {
    group: 'Tables (Functions, Types, Exceptions, GC collections)',
    keys: [
      ['Tab', 'into the table'],
      ['↑ ↓, PgUp PgDn, Home End', 'select a row'],
      ['Enter', 'open the selected row (the flame graph of a function or type)'],
      ['/', 'search (in the views with a search box)'],
    ],
  },
];

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return el !== null && (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA');
}

export function useShortcutsHelp(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === '?' && !typing(e.target)) {
        e.preventDefault();
        setOpen((o) => !o);
      } else if (e.key === 'Escape') setOpen(false);
      else if (e.key === '/' && !typing(e.target)) {
        // The flame graph's own handler focuses its search; elsewhere the view's search box, if it has one.
        const box = document.querySelector<HTMLInputElement>('[data-testid="flame-search"]');
        if (box !== null && document.activeElement !== box) {
          e.preventDefault();
          box.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return [open, setOpen];
}

export function ShortcutsHelp({ onClose }: { onClose(): void }): ReactElement {
  return (
    <div className="overlay" role="presentation" onClick={onClose} data-testid="shortcuts-overlay">
      <div className="shortcuts" role="dialog" aria-label="Keyboard shortcuts" data-testid="shortcuts-help" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        {SHORTCUTS.map((g) => (
          <section key={g.group}>
            <h3>{g.group}</h3>
            <dl>
              {g.keys.map(([key, what]) => (
                <div key={key} className="shortcut"><dt><kbd>{key}</kbd></dt><dd>{what}</dd></div>
              ))}
            </dl>
          </section>
        ))}
        <button type="button" onClick={onClose} data-testid="shortcuts-close">Close</button>
      </div>
    </div>
  );
}
