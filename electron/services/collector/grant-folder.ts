// The collector's folder and socket for a profiler that runs as another user (root attaching to
// a container's app user, recording/container-attach.ts): that user may connect to the socket,
// and nothing more. The folder stays root's, so its entries cannot be swapped by that user.

import { chmod, chown } from 'node:fs/promises';

export interface FileOwner {
  uid: number;
  gid: number;
}

/** Hands the socket to `owner` (owner-only) and lets only its group pass through the folder. */
export async function grantFolder(directory: string, socketPath: string, owner: FileOwner): Promise<void> {
  await chown(socketPath, owner.uid, owner.gid);
  await chown(directory, process.geteuid?.() ?? 0, owner.gid);
  await chmod(directory, 0o710);
}
