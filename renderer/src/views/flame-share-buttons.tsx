// "Copy as SVG" and "Save as HTML" beside the flame graph: the view as it is (metric, folding,
// threads, window, zoom, search), to paste into an issue or a chat or to send as one file. What
// was done, or why not, is said beside them until the next click.

import { useState, type ReactElement } from 'react';
import { viewGraph } from '../state/flame-share.js';
import { userMessage } from '../state/user-message.js';
import { useAppState, useWorkstation } from './use-app-state.js';

export function FlameShareButtons(): ReactElement {
  const ws = useWorkstation();
  const ready = useAppState((s) => viewGraph(s) !== null);
  const [said, setSaid] = useState<{ text: string; failed: boolean } | null>(null);
  const copy = (): void => {
    ws.share.copySvg().then(
      (text) => setSaid({ text, failed: false }),
      (e: unknown) => setSaid({ text: userMessage(e, 'The clipboard refused the copy.'), failed: true }),
    );
  };
  const save = (): void => {
    try {
      setSaid({ text: ws.share.saveHtml(), failed: false });
    } catch (e) {
      setSaid({ text: userMessage(e, 'The page could not be saved.'), failed: true });
    }
  };
  const why = ready ? undefined : 'The flame graph has no frames to share yet';
  return (
    <span className="flame-share">
      {said !== null && <span className={said.failed ? 'share-said failed' : 'share-said'} data-testid="flame-share-said" title={said.text}>{said.text}</span>}
      <button type="button" className="small" disabled={!ready} data-testid="flame-copy-svg" title={why ?? 'The flame graph as it is shown (zoom, search, folding), as flamegraph.pl\'s SVG'} onClick={copy}>Copy as SVG</button>
      <button type="button" className="small" disabled={!ready} data-testid="flame-save-html" title={why ?? 'The flame graph as it is shown, as one page with zoom and search that opens in any browser'} onClick={save}>Save as HTML</button>
    </span>
  );
}
