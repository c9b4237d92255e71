// Memory of the processes a process started, read from /proc: the browser's size is the sum of its own
// processes (browser, zygotes, utility and one renderer per page), none of which Node's own figures count.
// Two sums: RSS counts every shared page (Chromium's code, mapped by each process) once per process, so it
// overstates a browser several times over (measured here: 1,156 MB RSS for 293 MB PSS with two pages open);
// PSS divides each shared page among the processes sharing it and is the memory the browser really holds.
// Linux only; elsewhere the sums are null and the browser is recycled by count alone.

import fs from 'node:fs';

const PAGE_SIZE = 4096;

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      for (const child of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) if (child.trim()) out.push(Number(child));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[21]) * PAGE_SIZE;
  } catch {
    return 0;
  }
}

function pssOf(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Every process below `rootPid`, not the root itself. */
export function descendantsOf(rootPid: number = process.pid): number[] {
  const out: number[] = [];
  const stack = childrenOf(rootPid);
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...childrenOf(pid));
  }
  return out;
}

/**
 * Resident (RSS) and proportional (PSS) memory of every descendant of `rootPid`, in bytes; null off Linux.
 * @example descendantsMemory()?.pss // bytes the browser processes this server started really hold
 */
export function descendantsMemory(rootPid: number = process.pid): { rss: number; pss: number } | null {
  if (!fs.existsSync(`/proc/${rootPid}/task`)) return null;
  let rss = 0;
  let pss = 0;
  for (const pid of descendantsOf(rootPid)) {
    rss += rssOf(pid);
    pss += pssOf(pid);
  }
  return { rss, pss };
}

function isRenderer(pid: number): boolean {
  try {
    // Chromium rewrites its processes' titles: the arguments may be joined by spaces rather than NULs.
    return /(?:^|[\0 ])--type=renderer(?:[\0 ]|$)/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Chromium's renderer processes (one per page, frame of another site or worker host) below `rootPid`, each
 * with its PSS in bytes; empty off Linux.
 * @example rendererMemory().filter((r) => r.pss > budget) // the renderers to end
 */
export function rendererMemory(rootPid: number = process.pid): Array<{ pid: number; pss: number }> {
  return descendantsOf(rootPid)
    .filter(isRenderer)
    .map((pid) => ({ pid, pss: pssOf(pid) }));
}
