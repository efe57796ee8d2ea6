import { type ChildProcess, spawn } from 'node:child_process';

/**
 * Makes stdio MCP servers die with toolcat, even on `kill -9` (issue 12, defect 6: each server runs in its own
 * process group, so that closing it also ends what `npx` or a shell started; after toolcat was killed nothing was
 * left to end that group). Node cannot ask the kernel to signal a child when its parent dies (no
 * PR_SET_PDEATHSIG), so one tiny watcher per toolcat process does it: a `/bin/sh` loop, in a process group and
 * session of its own, that reads from a pipe only toolcat writes to. toolcat tells it each server's group as it
 * starts (`+ pgid`) and ends (`- pgid`); when the pipe closes (toolcat exited, however), it sends SIGTERM to every
 * group still listed, then SIGKILL two seconds later, and exits. One watcher (a ~1 MB shell), not one per server.
 *
 * The registration is written right after spawn() returns, into the pipe's kernel buffer: toolcat dying a moment
 * later still leaves it for the watcher to read. Not on Windows (no /bin/sh, no process groups).
 */
const SCRIPT = `trap '' INT HUP
groups=' '
while read -r op pg; do
  case "$op" in
    +) groups="$groups$pg " ;;
    -) rest=' '; for g in $groups; do [ "$g" = "$pg" ] || rest="$rest$g "; done; groups=$rest ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 2
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0`;

export class ChildReaper {
  private child: ChildProcess | null = null;
  private readonly groups = new Set<number>();

  constructor(private readonly shell = '/bin/sh') {}

  /** From now on, the process group `pgid` is ended if toolcat dies before it calls unwatch. */
  watch(pgid: number): void {
    if (process.platform === 'win32') return;
    this.ensure();
    this.groups.add(pgid);
    this.write(`+ ${pgid}\n`);
  }

  unwatch(pgid: number): void {
    if (!this.groups.delete(pgid)) return;
    this.write(`- ${pgid}\n`);
  }

  /** The watcher's pid (tests). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private write(line: string): void {
    const stdin = this.ensure()?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(line);
  }

  private ensure(): ChildProcess | null {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return this.child;
    let child: ChildProcess;
    try {
      child = spawn(this.shell, ['-c', SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, windowsHide: true });
    } catch {
      return null;
    }
    child.on('error', () => undefined); // no /bin/sh: servers are still ended on close(), only not after a kill -9
    child.stdin!.on('error', () => undefined);
    // Neither the watcher nor its pipe keep toolcat running.
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    this.child = child;
    // A new watcher (the previous one was killed) learns every group still running.
    for (const g of this.groups) child.stdin!.write(`+ ${g}\n`);
    return child;
  }
}

/** The one watcher of this process. */
export const childReaper = new ChildReaper();
