// What `npm run index` shows while it works (index-cli.ts): on a terminal, one bar redrawn in place
// with the counts of the phase under way, a rate and an estimate of the time left; elsewhere (a log,
// CI), a plain line every few seconds, so a long build is seen to move and a short one adds nothing.
// Hand-written rather than cli-progress: the phases count different things (files, then documents),
// the bar must redraw from the job's own reports while the synchronous index build holds the thread
// (no timer fires then), and the whole is smaller than the glue a library would need.
import { progressRatio, progressUnit } from './index-service/build-progress.js';
import type { BuildPhase, BuildProgress } from './index-service/build-progress.js';

export interface BuildProgressViewOptions {
  /** Where to draw: stderr, so stdout keeps the one result line. */
  out: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  /** Ms between redraws of the bar on a terminal. Default 100 (a modest 10 a second); ≥ 1. */
  redrawMs?: number;
  /** Ms between plain lines off a terminal. Default 5000; ≥ 1. */
  lineMs?: number;
  /** Prefix of each plain line. Default none. */
  prefix?: string;
  /** Clock in ms. Default performance.now. */
  now?: () => number;
}

export interface BuildProgressView {
  update(progress: BuildProgress): void;
  /** Stops the timer and, on a terminal, erases the bar, so the result line stands alone. */
  finish(): void;
}

const LABELS: Record<BuildPhase, string> = {
  starting: 'starting',
  check: 'checking the snapshot',
  walk: 'listing files',
  read: 'reading files',
  index: 'indexing',
  encode: 'encoding the snapshot',
  write: 'writing the snapshot',
  decode: 'decoding',
};
const BAR_WIDTH = 16;
const ERASE_LINE = '\r\x1b[K';

export function buildProgressView({ out, redrawMs = 100, lineMs = 5000, prefix = '', now = () => performance.now() }: BuildProgressViewOptions): BuildProgressView {
  for (const [name, value] of [['redrawMs', redrawMs], ['lineMs', lineMs]] as const) {
    if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a number of milliseconds ≥ 1, got ${String(value)}`);
  }
  const tty = out.isTTY === true;
  const every = tty ? redrawMs : lineMs;
  let latest: BuildProgress | undefined;
  let phaseStartedAt = now();
  let drawnAt = now();
  let drawnPhase: BuildPhase | undefined;
  let finished = false;

  const draw = (): void => {
    if (latest === undefined || finished) return;
    drawnAt = now();
    drawnPhase = latest.phase;
    const seconds = (drawnAt - phaseStartedAt) / 1000;
    if (tty) {
      const line = barLine(latest, seconds);
      const width = out.columns !== undefined && out.columns > 0 ? out.columns - 1 : 79;
      out.write(`${ERASE_LINE}${line.length > width ? line.slice(0, width) : line}`);
    } else {
      out.write(`${prefix}${plainLine(latest, seconds)}\n`);
    }
  };
  // The job's reports drive the drawing; the timer only keeps a stalled phase (one slow file) visibly alive.
  const timer = setInterval(draw, every);
  timer.unref();

  return {
    update(progress) {
      if (finished) return;
      if (progress.phase !== latest?.phase) phaseStartedAt = now();
      latest = progress;
      // A new phase shows at once on a terminal; off it, lines stay every `lineMs`.
      if ((tty && progress.phase !== drawnPhase) || now() - drawnAt >= every) draw();
    },
    finish() {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      if (tty && drawnPhase !== undefined) out.write(ERASE_LINE);
    },
  };
}

function barLine(progress: BuildProgress, seconds: number): string {
  const label = LABELS[progress.phase];
  if (progressUnit(progress.phase) === undefined) return `${label}…`;
  const filled = Math.round(progressRatio(progress) * BAR_WIDTH);
  // The rate and the time left come before the details: a narrow terminal cuts the end of the line.
  return [`${label} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${counts(progress)}`, ...pace(progress, seconds), ...details(progress)].join(' · ');
}

function plainLine(progress: BuildProgress, seconds: number): string {
  const label = LABELS[progress.phase];
  if (progressUnit(progress.phase) === undefined) return `${label}…`;
  const percent = Math.floor(progressRatio(progress) * 100);
  return `${label}: ${[`${counts(progress)} (${percent}%)`, ...details(progress), ...pace(progress, seconds)].join(', ')}`;
}

/** "1,234/5,000 extracted" (of the files, in "reading files") or "800/5,000 documents". */
function counts({ phase, done, total }: BuildProgress): string {
  return `${number(done)}/${number(total)} ${phase === 'read' ? 'extracted' : progressUnit(phase)}`;
}

function details({ read, chunks }: BuildProgress): string[] {
  return [...(read !== undefined ? [`${number(read)} read`] : []), ...(chunks !== undefined ? [`${number(chunks)} chunks`] : [])];
}

/** "850/s", "ETA 5 s": from the phase's average so far; nothing until there is one. */
function pace({ done, total }: BuildProgress, seconds: number): string[] {
  if (done === 0 || seconds <= 0) return [];
  const rate = done / seconds;
  return [`${number(Math.round(rate))}/s`, `ETA ${duration((total - done) / rate)}`];
}

function duration(seconds: number): string {
  if (seconds < 1) return '<1 s';
  const whole = Math.round(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

const number = (n: number): string => n.toLocaleString('en-US');
