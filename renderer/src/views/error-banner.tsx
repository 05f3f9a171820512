// The one sentence of the latest error, until the user dismisses it.

import type { ReactElement } from 'react';
import { useAppState, useWorkstation } from './use-app-state.js';

export function ErrorBanner(): ReactElement | null {
  const ws = useWorkstation();
  const error = useAppState((s) => s.error);
  if (error === null) return null;
  return (
    <div className="error-banner" role="alert" data-testid="error-banner">
      <span data-testid="error-text">{error}</span>
      <button type="button" className="link" onClick={() => ws.dismissError()} aria-label="Dismiss">✕</button>
    </div>
  );
}
