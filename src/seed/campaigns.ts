// The outreach campaigns of a demo clinic: names, descriptions and type-dependent settings using
// the keys the spec shows (calling hours only for channels that call, a message template only for
// channels that write).
import type { CampaignChannelValue, CampaignTypeValue } from '../domain/values.js';
import type { Rng } from './random.js';

export interface CampaignSettings {
  max_attempts?: number;
  retry_interval_hours?: number;
  call_window_start?: string;
  call_window_end?: string;
  inactivity_threshold_days?: number;
  message_template?: string;
  reminder_hours_before?: number;
  allow_reschedule?: boolean;
  allow_cancel?: boolean;
}

const NAMES: Record<CampaignTypeValue, readonly string[]> = {
  no_show_recovery: ['No-show recovery', 'Missed appointment rebooking', 'No-show follow-up'],
  reactivation: ['Patient reactivation', 'We miss you', 'Lapsed patients win-back'],
  appointment_reminder: ['Appointment reminders', 'Visit confirmation', 'Day-before reminders'],
  follow_up: ['Post-visit follow-up', 'Treatment follow-up', 'Aftercare check-in'],
  recall: ['Annual check-up recall', 'Six-month recall', 'Periodic review recall'],
  custom: ['Spring offer', 'New patient welcome', 'Flu season outreach', 'Open day invitation'],
};

const TEMPLATES: Record<CampaignTypeValue, string> = {
  no_show_recovery:
    'Hi {{first_name}}, we missed you at {{clinic_name}} on {{appointment_date}}. Would you like to book a new time? Reply here or tap {{booking_link}}.',
  reactivation:
    "Hi {{first_name}}, it's been a while since your last visit to {{clinic_name}}. We'd love to see you again - reply to book or tap {{booking_link}}.",
  appointment_reminder:
    'Hi {{first_name}}, this is a reminder of your appointment at {{clinic_name}} on {{appointment_date}} at {{appointment_time}}. Reply YES to confirm, or let us know if you need to reschedule or cancel.',
  follow_up: 'Hi {{first_name}}, how are you feeling after your visit to {{clinic_name}}? Reply here if you have any questions or want to book a follow-up.',
  recall: "Hi {{first_name}}, you're due for your periodic check-up at {{clinic_name}}. Reply to choose a time or book at {{booking_link}}.",
  custom: 'Hi {{first_name}}, {{clinic_name}} has a special offer this month. Reply to find out more or book at {{booking_link}}.',
};

function description(type: CampaignTypeValue, name: string, settings: CampaignSettings, service: string): string {
  switch (type) {
    case 'no_show_recovery':
      return 'Contacts patients who missed an appointment in the last seven days and offers them a new slot.';
    case 'reactivation':
      return `Re-engages patients with no visit in the last ${settings.inactivity_threshold_days} days and invites them to book.`;
    case 'appointment_reminder':
      return `Reminds patients ${settings.reminder_hours_before} hours before each appointment so they can confirm, reschedule or cancel.`;
    case 'follow_up':
      return 'Checks in with patients a few days after their visit and offers a follow-up appointment when needed.';
    case 'recall':
      return `Invites patients who are due for their periodic ${service} (last visit over ${settings.inactivity_threshold_days} days ago).`;
    case 'custom':
      return `${name}: a one-off campaign promoting the ${service} to existing patients.`;
  }
}

function pickWindow(rng: Rng): Pick<CampaignSettings, 'call_window_start' | 'call_window_end'> {
  return { call_window_start: rng.pick(['09:00', '09:30', '10:00']), call_window_end: rng.pick(['18:00', '19:00', '19:30', '20:00']) };
}

export function campaignSettings(rng: Rng, type: CampaignTypeValue, channel: CampaignChannelValue): CampaignSettings {
  const calls = channel !== 'whatsapp';
  const writes = channel !== 'voice';
  const s: CampaignSettings = {};
  switch (type) {
    case 'no_show_recovery':
      s.max_attempts = rng.int(2, 3);
      s.retry_interval_hours = rng.pick([24, 48]);
      break;
    case 'reactivation':
      s.inactivity_threshold_days = rng.pick([180, 270, 365, 540]);
      s.max_attempts = rng.int(2, 3);
      s.retry_interval_hours = rng.pick([72, 96]);
      break;
    case 'appointment_reminder':
      s.reminder_hours_before = rng.pick([24, 24, 48, 72]);
      s.max_attempts = rng.int(1, 2);
      s.retry_interval_hours = rng.pick([4, 6]);
      break;
    case 'follow_up':
      s.max_attempts = rng.int(1, 2);
      s.retry_interval_hours = rng.pick([24, 48]);
      break;
    case 'recall':
      s.inactivity_threshold_days = rng.pick([180, 365]);
      s.max_attempts = 3;
      s.retry_interval_hours = rng.pick([48, 72]);
      break;
    case 'custom':
      s.max_attempts = rng.int(1, 3);
      s.retry_interval_hours = rng.pick([24, 48, 72]);
      break;
  }
  if (calls) Object.assign(s, pickWindow(rng));
  if (writes) s.message_template = TEMPLATES[type];
  if (type === 'appointment_reminder') {
    s.allow_reschedule = true;
    s.allow_cancel = rng.chance(0.8);
  } else if (type === 'no_show_recovery' || type === 'recall' || type === 'follow_up') {
    s.allow_reschedule = true;
  }
  return s;
}

export function campaignCopy(
  rng: Rng,
  type: CampaignTypeValue,
  settings: CampaignSettings,
  service: string,
  taken: ReadonlySet<string>,
): { name: string; description: string } {
  const names = NAMES[type];
  const start = rng.int(0, names.length - 1);
  let name = names[start]!;
  for (let k = 1; k <= names.length && taken.has(name); k++) name = names[(start + k) % names.length]!;
  if (taken.has(name)) name = `${name} ${taken.size + 1}`;
  return { name, description: description(type, name, settings, service) };
}

/** Minutes after midnight of an "HH:MM" setting. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}
