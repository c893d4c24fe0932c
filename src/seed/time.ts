// Wall-clock time in a clinic's IANA time zone, fast enough for a million records: the UTC offset
// is computed with Intl once per (zone, UTC day) and reused; only the rare day that contains a DST
// change is resolved per call.
import type { DateStyle } from './locales.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const dayOffsets = new Map<string, number | null>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Exact offset (local wall clock minus UTC, in ms) of `timeZone` at `instantMs`. */
export function exactOffsetMs(timeZone: string, instantMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return local - (instantMs - (((instantMs % 1000) + 1000) % 1000));
}

/** Offset of `timeZone` at `instantMs`, cached per UTC day when the day has no DST change. */
export function offsetMs(timeZone: string, instantMs: number): number {
  const day = Math.floor(instantMs / DAY_MS);
  const key = `${timeZone}|${day}`;
  let cached = dayOffsets.get(key);
  if (cached === undefined) {
    const start = exactOffsetMs(timeZone, day * DAY_MS);
    const end = exactOffsetMs(timeZone, (day + 1) * DAY_MS - 1000);
    cached = start === end ? start : null;
    dayOffsets.set(key, cached);
  }
  return cached ?? exactOffsetMs(timeZone, instantMs);
}

/** Local wall-clock time, expressed as ms since the epoch as if it were UTC. */
export function toLocal(timeZone: string, utcMs: number): number {
  return utcMs + offsetMs(timeZone, utcMs);
}

/** The UTC instant at which the clocks of `timeZone` show `localMs` (see toLocal). */
export function fromLocal(timeZone: string, localMs: number): number {
  const guess = localMs - offsetMs(timeZone, localMs);
  return localMs - offsetMs(timeZone, guess);
}

/** 0 = Monday ... 6 = Sunday, for a day number (days since 1970-01-01, a Thursday). */
export function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 3) % 7) + 7) % 7;
}

const WEEKDAYS = {
  en: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  es: ['lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado', 'domingo'],
  de: ['Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag', 'Sonntag'],
  fr: ['lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi', 'dimanche'],
};
const MONTHS = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  es: ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'],
  de: ['Januar', 'Februar', 'März', 'April', 'Mai', 'Juni', 'Juli', 'August', 'September', 'Oktober', 'November', 'Dezember'],
  fr: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
};

/**
 * An appointment's day and time as the country writes it, without a leading preposition (the
 * sentence adds "on", "el", "am", "le"): "Tuesday 14 March at 10:30", "Tuesday, March 14 at 10:30 AM",
 * "martes 14 de marzo a las 10:30", "Dienstag, 14. März, um 10:30 Uhr", "mardi 14 mars à 10h30".
 */
export function formatSlot(dayNumber: number, minuteOfDay: number, style: DateStyle): string {
  const language = style === 'en-GB' || style === 'en-US' ? 'en' : style;
  const date = new Date(dayNumber * DAY_MS);
  const weekday = WEEKDAYS[language][weekdayOf(dayNumber)]!;
  const month = MONTHS[language][date.getUTCMonth()]!;
  const day = date.getUTCDate();
  const h = Math.floor(minuteOfDay / 60);
  const m = String(minuteOfDay % 60).padStart(2, '0');
  switch (style) {
    case 'en-US':
      return `${weekday}, ${month} ${day} at ${h % 12 === 0 ? 12 : h % 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
    case 'es':
      return `${weekday} ${day} de ${month} a la${h === 1 ? '' : 's'} ${h}:${m}`;
    case 'de':
      return `${weekday}, ${day}. ${month}, um ${h}:${m} Uhr`;
    case 'fr':
      return `${weekday} ${day === 1 ? '1er' : day} ${month} à ${h}h${m === '00' ? '' : m}`;
    default:
      return `${weekday} ${day} ${month} at ${String(h).padStart(2, '0')}:${m}`;
  }
}
