// The outreach campaigns of a demo clinic: names, descriptions and type-dependent settings using
// the keys the spec shows (calling hours only for channels that call, a message template only for
// channels that write), in the clinic's language.
import type { CampaignChannelValue, CampaignTypeValue } from '../domain/values.js';
import type { Language, Noun, Service } from './locales.js';
import { deDer, esEl, esO, frLe } from './phrasebooks/grammar.js';
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

/** Names by language and type; the lists of a type have the same length in every language (the same draws). */
const NAMES: Record<Language, Record<CampaignTypeValue, readonly string[]>> = {
  en: {
    no_show_recovery: ['No-show recovery', 'Missed appointment rebooking', 'No-show follow-up'],
    reactivation: ['Patient reactivation', 'We miss you', 'Lapsed patients win-back'],
    appointment_reminder: ['Appointment reminders', 'Visit confirmation', 'Day-before reminders'],
    follow_up: ['Post-visit follow-up', 'Treatment follow-up', 'Aftercare check-in'],
    recall: ['Annual check-up recall', 'Six-month recall', 'Periodic review recall'],
    custom: ['Spring offer', 'New patient welcome', 'Flu season outreach', 'Open day invitation'],
  },
  es: {
    no_show_recovery: ['Recuperación de ausencias', 'Nueva cita tras ausencia', 'Seguimiento de citas perdidas'],
    reactivation: ['Reactivación de pacientes', 'Le echamos de menos', 'Recuperación de pacientes inactivos'],
    appointment_reminder: ['Recordatorios de cita', 'Confirmación de visita', 'Recordatorio del día anterior'],
    follow_up: ['Seguimiento tras la visita', 'Seguimiento del tratamiento', 'Control tras la consulta'],
    recall: ['Aviso de revisión anual', 'Revisión semestral', 'Aviso de revisión periódica'],
    custom: ['Oferta de primavera', 'Bienvenida a nuevos pacientes', 'Campaña de la gripe', 'Jornada de puertas abiertas'],
  },
  de: {
    no_show_recovery: ['Rückgewinnung nach Terminausfall', 'Neuer Termin nach Nichterscheinen', 'Nachfassen bei verpassten Terminen'],
    reactivation: ['Patientenreaktivierung', 'Wir vermissen Sie', 'Rückgewinnung inaktiver Patienten'],
    appointment_reminder: ['Terminerinnerungen', 'Terminbestätigung', 'Erinnerung am Vortag'],
    follow_up: ['Nachsorge nach dem Besuch', 'Behandlungsnachsorge', 'Nachfrage nach der Behandlung'],
    recall: ['Jährliche Vorsorge-Erinnerung', 'Halbjährliche Kontrolle', 'Erinnerung an die Routinekontrolle'],
    custom: ['Frühlingsangebot', 'Willkommen für Neupatienten', 'Grippesaison-Aktion', 'Einladung zum Tag der offenen Tür'],
  },
  fr: {
    no_show_recovery: ['Relance des rendez-vous manqués', 'Reprogrammation après absence', 'Suivi des absences'],
    reactivation: ['Réactivation des patients', 'Vous nous manquez', 'Reconquête des patients inactifs'],
    appointment_reminder: ['Rappels de rendez-vous', 'Confirmation de visite', 'Rappel la veille'],
    follow_up: ['Suivi après visite', 'Suivi de traitement', 'Prise de nouvelles après les soins'],
    recall: ['Rappel du bilan annuel', 'Rappel semestriel', 'Rappel de contrôle périodique'],
    custom: ['Offre de printemps', 'Bienvenue aux nouveaux patients', 'Campagne grippe', 'Invitation à la journée portes ouvertes'],
  },
};

/** The WhatsApp message of each type, in the language the clinic writes to its patients in. */
const TEMPLATES: Record<Language, Record<CampaignTypeValue, string>> = {
  en: {
    no_show_recovery:
      'Hi {{first_name}}, we missed you at {{clinic_name}} on {{appointment_date}}. Would you like to book a new time? Reply here or tap {{booking_link}}.',
    reactivation:
      "Hi {{first_name}}, it's been a while since your last visit to {{clinic_name}}. We'd love to see you again - reply to book or tap {{booking_link}}.",
    appointment_reminder:
      'Hi {{first_name}}, this is a reminder of your appointment at {{clinic_name}} on {{appointment_date}} at {{appointment_time}}. Reply YES to confirm, or let us know if you need to reschedule or cancel.',
    follow_up: 'Hi {{first_name}}, how are you feeling after your visit to {{clinic_name}}? Reply here if you have any questions or want to book a follow-up.',
    recall: "Hi {{first_name}}, you're due for your periodic check-up at {{clinic_name}}. Reply to choose a time or book at {{booking_link}}.",
    custom: 'Hi {{first_name}}, {{clinic_name}} has a special offer this month. Reply to find out more or book at {{booking_link}}.',
  },
  es: {
    no_show_recovery:
      '¡Hola, {{first_name}}! Vimos que no pudo acudir a su cita en {{clinic_name}} el {{appointment_date}}. ¿Quiere reservar una nueva? Responda aquí o pulse {{booking_link}}.',
    reactivation:
      '¡Hola, {{first_name}}! Hace tiempo que no visita {{clinic_name}} y nos encantaría volver a verle. Responda para reservar o pulse {{booking_link}}.',
    appointment_reminder:
      'Hola, {{first_name}}, le recordamos su cita en {{clinic_name}} el {{appointment_date}} a las {{appointment_time}}. Responda SÍ para confirmar, o díganos si necesita cambiarla o cancelarla.',
    follow_up:
      '¡Hola, {{first_name}}! ¿Cómo se encuentra después de su visita a {{clinic_name}}? Responda aquí si tiene alguna duda o quiere reservar una cita de seguimiento.',
    recall: '¡Hola, {{first_name}}! Ya le toca su revisión periódica en {{clinic_name}}. Responda para elegir un horario o reserve en {{booking_link}}.',
    custom: '¡Hola, {{first_name}}! {{clinic_name}} tiene una oferta especial este mes. Responda para saber más o reserve en {{booking_link}}.',
  },
  de: {
    no_show_recovery:
      'Hallo {{first_name}}, leider konnten Sie Ihren Termin bei {{clinic_name}} am {{appointment_date}} nicht wahrnehmen. Möchten Sie einen neuen Termin vereinbaren? Antworten Sie hier oder tippen Sie auf {{booking_link}}.',
    reactivation:
      'Hallo {{first_name}}, Ihr letzter Besuch bei {{clinic_name}} ist schon eine Weile her. Wir würden uns freuen, Sie wiederzusehen: Antworten Sie zum Buchen oder tippen Sie auf {{booking_link}}.',
    appointment_reminder:
      'Hallo {{first_name}}, wir erinnern Sie an Ihren Termin bei {{clinic_name}} am {{appointment_date}} um {{appointment_time}} Uhr. Bitte antworten Sie mit JA zur Bestätigung oder teilen Sie uns mit, ob Sie den Termin verschieben oder absagen möchten.',
    follow_up:
      'Hallo {{first_name}}, wie geht es Ihnen nach Ihrem Besuch bei {{clinic_name}}? Antworten Sie hier, wenn Sie Fragen haben oder einen Kontrolltermin buchen möchten.',
    recall:
      'Hallo {{first_name}}, Ihre regelmäßige Kontrolle bei {{clinic_name}} steht an. Antworten Sie, um einen Termin zu wählen, oder buchen Sie unter {{booking_link}}.',
    custom:
      'Hallo {{first_name}}, {{clinic_name}} hat diesen Monat ein Sonderangebot. Antworten Sie für mehr Informationen oder buchen Sie unter {{booking_link}}.',
  },
  fr: {
    no_show_recovery:
      "Bonjour {{first_name}}, vous n'avez pas pu venir à votre rendez-vous chez {{clinic_name}} le {{appointment_date}}. Souhaitez-vous en fixer un nouveau ? Répondez ici ou cliquez sur {{booking_link}}.",
    reactivation:
      'Bonjour {{first_name}}, votre dernière visite chez {{clinic_name}} remonte à un moment. Nous serions ravis de vous revoir : répondez pour prendre rendez-vous ou cliquez sur {{booking_link}}.',
    appointment_reminder:
      "Bonjour {{first_name}}, nous vous rappelons votre rendez-vous chez {{clinic_name}} le {{appointment_date}} à {{appointment_time}}. Répondez OUI pour confirmer, ou dites-nous si vous devez le déplacer ou l'annuler.",
    follow_up:
      'Bonjour {{first_name}}, comment vous sentez-vous après votre visite chez {{clinic_name}} ? Répondez ici si vous avez des questions ou souhaitez prendre un rendez-vous de suivi.',
    recall:
      "Bonjour {{first_name}}, c'est le moment de votre contrôle périodique chez {{clinic_name}}. Répondez pour choisir un créneau ou réservez sur {{booking_link}}.",
    custom: 'Bonjour {{first_name}}, {{clinic_name}} propose une offre spéciale ce mois-ci. Répondez pour en savoir plus ou réservez sur {{booking_link}}.',
  },
};

function description(language: Language, type: CampaignTypeValue, name: string, settings: CampaignSettings, service: Noun): string {
  const days = settings.inactivity_threshold_days;
  const hours = settings.reminder_hours_before;
  switch (language) {
    case 'es':
      switch (type) {
        case 'no_show_recovery':
          return 'Contacta a los pacientes que no acudieron a su cita en los últimos siete días y les ofrece una nueva.';
        case 'reactivation':
          return `Vuelve a contactar a los pacientes sin visitas en los últimos ${days} días y les invita a pedir cita.`;
        case 'appointment_reminder':
          return `Recuerda a los pacientes cada cita ${hours} horas antes para que puedan confirmarla, cambiarla o cancelarla.`;
        case 'follow_up':
          return 'Se interesa por los pacientes unos días después de su visita y les ofrece una cita de seguimiento si la necesitan.';
        case 'recall':
          return `Invita a los pacientes a los que ya les toca su ${service.text} periódic${esO(service.gender === 'f')} (última visita hace más de ${days} días).`;
        case 'custom':
          return `${name}: campaña puntual que promociona ${esEl(service)} entre los pacientes actuales.`;
      }
      break;
    case 'de':
      switch (type) {
        case 'no_show_recovery':
          return 'Kontaktiert Patienten, die in den letzten sieben Tagen einen Termin verpasst haben, und bietet ihnen einen neuen an.';
        case 'reactivation':
          return `Spricht Patienten an, die seit ${days} Tagen nicht mehr in der Praxis waren, und lädt sie zur Terminbuchung ein.`;
        case 'appointment_reminder':
          return `Erinnert Patienten ${hours} Stunden vor jedem Termin, damit sie ihn bestätigen, verschieben oder absagen können.`;
        case 'follow_up':
          return 'Meldet sich einige Tage nach dem Besuch bei den Patienten und bietet bei Bedarf einen Kontrolltermin an.';
        case 'recall':
          return `Lädt Patienten ein, bei denen ${deDer({ ...service, text: `regelmäßige ${service.text}` }, 'nom')} fällig ist (letzter Besuch vor über ${days} Tagen).`;
        case 'custom':
          return `${name}: einmalige Aktion, die ${deDer(service, 'acc')} bei bestehenden Patienten bewirbt.`;
      }
      break;
    case 'fr':
      switch (type) {
        case 'no_show_recovery':
          return 'Contacte les patients qui ont manqué un rendez-vous au cours des sept derniers jours et leur propose un nouveau créneau.';
        case 'reactivation':
          return `Relance les patients sans visite depuis ${days} jours et les invite à prendre rendez-vous.`;
        case 'appointment_reminder':
          return `Rappelle chaque rendez-vous aux patients ${hours} heures à l'avance pour qu'ils puissent le confirmer, le déplacer ou l'annuler.`;
        case 'follow_up':
          return 'Prend des nouvelles des patients quelques jours après leur visite et leur propose un rendez-vous de suivi si besoin.';
        case 'recall':
          return `Invite les patients dont ${frLe(service)} périodique arrive à échéance (dernière visite il y a plus de ${days} jours).`;
        case 'custom':
          return `${name} : campagne ponctuelle pour promouvoir ${frLe(service)} auprès des patients existants.`;
      }
      break;
    default:
      break;
  }
  switch (type) {
    case 'no_show_recovery':
      return 'Contacts patients who missed an appointment in the last seven days and offers them a new slot.';
    case 'reactivation':
      return `Re-engages patients with no visit in the last ${days} days and invites them to book.`;
    case 'appointment_reminder':
      return `Reminds patients ${hours} hours before each appointment so they can confirm, reschedule or cancel.`;
    case 'follow_up':
      return 'Checks in with patients a few days after their visit and offers a follow-up appointment when needed.';
    case 'recall':
      return `Invites patients who are due for their periodic ${service.text} (last visit over ${days} days ago).`;
    case 'custom':
      return `${name}: a one-off campaign promoting the ${service.text} to existing patients.`;
  }
}

function pickWindow(rng: Rng): Pick<CampaignSettings, 'call_window_start' | 'call_window_end'> {
  return { call_window_start: rng.pick(['09:00', '09:30', '10:00']), call_window_end: rng.pick(['18:00', '19:00', '19:30', '20:00']) };
}

export function campaignSettings(rng: Rng, language: Language, type: CampaignTypeValue, channel: CampaignChannelValue): CampaignSettings {
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
  if (writes) s.message_template = TEMPLATES[language][type];
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
  language: Language,
  type: CampaignTypeValue,
  settings: CampaignSettings,
  service: Service,
  taken: ReadonlySet<string>,
): { name: string; description: string } {
  const names = NAMES[language][type];
  const start = rng.int(0, names.length - 1);
  let name = names[start]!;
  for (let k = 1; k <= names.length && taken.has(name); k++) name = names[(start + k) % names.length]!;
  if (taken.has(name)) name = `${name} ${taken.size + 1}`;
  return { name, description: description(language, type, name, settings, service.names[language]) };
}

/** Minutes after midnight of an "HH:MM" setting. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}
