// Memory of the processes a process started, read from /proc: the browser's size is the sum of its own
// processes (browser, zygote, GPU/utility and one renderer per page), none of which Node's own figures count.
// Linux only; elsewhere the sum is null and the browser is recycled by count alone.

import fs from 'node:fs';

const PAGE_SIZE = 4096;

function readStat(pid: number): { ppid: number; rssPages: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses: read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), rssPages: Number(fields[21]) };
  } catch {
    return null;
  }
}

/**
 * Resident memory of every descendant of `rootPid` (not the root itself), in bytes; null off Linux.
 * @example descendantsRss(process.pid) // bytes held by the browser processes this server started
 */
export function descendantsRss(rootPid: number = process.pid): number | null {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = readStat(pid);
    if (!stat) continue;
    rss.set(pid, stat.rssPages * PAGE_SIZE);
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  let total = 0;
  const stack = [...(children.get(rootPid) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
