// German (the clinics in Germany): the assistant addresses patients as "Sie".

import { capitalise, deDer, deEin, deEr, deIhrAdjective, dePatient, deZu } from './grammar.js';
import type { Conversation, Phrasebook } from './phrasebook.js';

const patient = (c: Conversation): string => dePatient(c.female);
/** "des Patienten" / "der Patientin". */
const ofPatient = (c: Conversation): string => (c.female ? 'der Patientin' : 'des Patienten');

/** What the clinic was getting in touch about, as a phrase with "zu" ("zum Termin am Dienstag, 14. März, um 10:30 Uhr"). */
function topic(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND' || c.type === 'CAMPAIGN_CALLBACK') return `zur Anfrage nach ${deEin(service, 'dat')}`;
  if (c.type === 'APPOINTMENT_REMINDER') return `zum Termin am ${c.oldSlot}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `zum verpassten Termin ${deZu(service)}`;
    case 'reactivation':
      return 'zur Vereinbarung eines neuen Termins';
    case 'follow_up':
      return 'zur Nachsorge nach dem letzten Besuch';
    case 'recall':
      return deZu(service, 'fällig');
    case 'custom':
      return `zum Monatsangebot für ${deDer(service, 'acc')}`;
    case 'appointment_reminder':
      return `zum Termin am ${c.oldSlot}`;
    default:
      return `zu ${deEin(service, 'dat')}`;
  }
}

function pitch(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND')
    return `Sie haben über unser Online-Formular nach ${deEin(service, 'dat')} gefragt. Passt es gerade, um einen Termin für Sie zu finden?`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Wie gewünscht rufe ich Sie wegen Ihrer Anfrage ${deZu(service)} zurück.`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `Leider konnten Sie Ihren Termin ${deZu(service)} am ${c.missedSlot} nicht wahrnehmen. Möchten Sie einen neuen Termin vereinbaren?`;
    case 'reactivation':
      return `Ihr letzter Besuch bei uns ist schon eine Weile her, und wir würden uns freuen, Sie wiederzusehen. Möchten Sie ${deEin(service, 'acc')} buchen?`;
    case 'follow_up':
      return 'Wir melden uns nach Ihrem letzten Besuch bei Ihnen. Wie geht es Ihnen? Gerne vereinbaren wir auch gleich Ihren Kontrolltermin.';
    case 'recall':
      return `${deIhrAdjective(service, 'regelmäßig')} steht an. Sollen wir einen passenden Termin suchen?`;
    case 'custom':
      return `Diesen Monat bieten wir ${deEin(service, 'acc')} für ${c.price} an. Möchten Sie einen Termin buchen?`;
    default:
      return `Wir melden uns wegen Ihres Termins am ${c.oldSlot}.`;
  }
}

function voicemailReason(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND') return `Wir rufen wegen Ihrer Formularanfrage zu ${deEin(service, 'dat')} an`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Wir rufen Sie wegen Ihrer Anfrage ${deZu(service)} zurück`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return 'Sie haben Ihren letzten Termin verpasst, und wir helfen Ihnen gerne, einen neuen zu vereinbaren';
    case 'reactivation':
      return 'Ihr letzter Besuch ist schon eine Weile her, und wir würden uns freuen, Sie wiederzusehen';
    case 'follow_up':
      return 'Wir möchten hören, wie es Ihnen nach Ihrem Besuch geht';
    case 'recall':
      return `${deIhrAdjective(service, 'regelmäßig')} steht an`;
    case 'custom':
      return `Diesen Monat haben wir ein Sonderangebot für ${deDer(service, 'acc')}`;
    default:
      return `Wir rufen wegen Ihres Termins am ${c.oldSlot} an`;
  }
}

/** How the booking came about. */
function context(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return 'nach einer Anfrage über das Online-Formular';
  if (c.type === 'CAMPAIGN_CALLBACK') return 'beim gewünschten Rückruf';
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `nach dem verpassten Termin am ${c.missedSlot}`;
    case 'reactivation':
      return 'auf die Reaktivierungskampagne hin';
    case 'follow_up':
      return 'im Rahmen der Nachsorge nach dem Besuch';
    case 'recall':
      return 'auf die Erinnerung an die Vorsorgeuntersuchung hin';
    case 'custom':
      return 'auf die Aktionskampagne hin';
    default:
      return 'nach Kontaktaufnahme durch die Praxis';
  }
}

const contact = (c: Conversation): string => (c.channel === 'voice' ? 'telefonisch' : 'per WhatsApp');

export const de: Phrasebook = {
  when: ['morgen Vormittag', 'heute Nachmittag', 'nach 17 Uhr', 'am Montagvormittag', 'heute etwas später', 'morgen nach der Mittagspause'],
  reasons: [
    ['meinen Dienstplan prüfen', 'den Dienstplan prüfen'],
    ['mit meiner Familie darüber sprechen', 'mit der Familie darüber sprechen'],
    ['klären, was meine Krankenkasse übernimmt', 'klären, was die Krankenkasse übernimmt'],
    ['über die Kosten nachdenken', 'über die Kosten nachdenken'],
    ['in meinen Kalender schauen', 'in den Kalender schauen'],
  ],
  questions: [
    ['Ich habe eine Frage zu meiner letzten Rechnung.', 'zur letzten Rechnung'],
    ['Ich würde gerne mit jemandem über meinen Behandlungsplan sprechen.', 'zum Behandlungsplan'],
    ['Ich habe eine Frage zu meinem Versicherungsschutz.', 'zum Versicherungsschutz'],
    ['Kann ich eine Kopie meiner Befunde bekommen?', 'zu einer Kopie der Befunde'],
  ],

  noAnswer: (c) => `(Nach ${c.seconds} Sekunden Klingeln nicht angenommen; keine Mailbox erkannt.)`,
  noAnswerSummary: (c) => `Der Anruf ${topic(c)} wurde nach ${c.seconds} Sekunden nicht angenommen, und es wurde keine Nachricht auf der Mailbox hinterlassen.`,
  voicemailGreetings: (c) => [
    `Hallo, hier ist die Mailbox von ${c.first}. Ich bin gerade nicht erreichbar, bitte hinterlassen Sie eine Nachricht nach dem Signalton.`,
    'Der gewünschte Gesprächspartner ist zurzeit nicht erreichbar. Bitte hinterlassen Sie eine Nachricht nach dem Signalton.',
  ],
  voicemailMessage: (c) =>
    `Hallo ${c.first}, hier ist ${c.agent} von ${c.clinic}. ${voicemailReason(c)}. Bitte rufen Sie uns unter ${c.clinicPhone} zurück oder antworten Sie auf unsere WhatsApp-Nachricht. Vielen Dank!`,
  voicemailSummary: (c) => `Der Anruf ging auf die Mailbox; es wurde eine Nachricht ${topic(c)} mit der Bitte um Rückruf hinterlassen.`,

  reminder: (c) =>
    `Hallo ${c.first}, wir erinnern Sie an Ihren Termin ${deZu(c.service)} bei ${c.clinic} am ${c.oldSlot}. Bitte antworten Sie mit JA zur Bestätigung oder teilen Sie uns mit, ob Sie den Termin verschieben oder absagen möchten.`,
  whatsappOpening: (c) => `Hallo ${c.first}! Hier ist ${c.agent}, die virtuelle Assistentin von ${c.clinic}. ${pitch(c)}`,
  callCheck: (c) => `Hallo, spreche ich mit ${c.first}?`,
  callCheckAnswers: () => ['Ja, am Apparat.', 'Ja, wer ist da?', 'Hallo, ja, das bin ich.'],
  callIntro: (c) => `Hallo ${c.first}, hier ist ${c.agent}, die virtuelle Assistentin von ${c.clinic}. ${pitch(c)}`,
  inboundCallGreeting: (c) => `Vielen Dank für Ihren Anruf bei ${c.clinic}. Hier ist ${c.agent}, die virtuelle Assistentin. Wie kann ich Ihnen helfen?`,
  messageThanks: (c) => `Hallo ${c.first}, danke für Ihre Nachricht!`,

  changeRequest: (c) => `Hallo, ich muss meinen Termin am ${c.oldSlot} verschieben.`,
  cancelRequest: (c) => `Hallo, ich muss leider meinen Termin am ${c.oldSlot} absagen.`,
  priceRequest: (c) => `Hallo, was kostet ${deEin(c.service, 'nom')}?`,
  stopMessagesRequest: () => 'Bitte schicken Sie mir keine Nachrichten mehr.',
  stopCallsRequest: () => 'Bitte rufen Sie mich nicht mehr wegen Terminen an, ich bekomme zu viele Anrufe.',
  bookRequests: (c) => [
    `Hallo, ich möchte einen Termin für ${deEin(c.service, 'acc')} vereinbaren.`,
    `Guten Tag, haben Sie nächste Woche einen Termin für ${deEin(c.service, 'acc')} frei?`,
  ],

  confirmReplies: () => ['JA', 'Ja, bestätigt. Bis dann!', 'Ja, ich komme, danke.'],
  acceptReplies: () => ['Ja, das wäre super.', 'Gerne, buchen wir das.', 'Ja, bitte, ich wollte mich sowieso melden.'],
  moveReminderReply: () => 'An dem Tag kann ich leider nicht. Können wir den Termin verschieben?',
  moveReply: (c) => `Ich habe eigentlich schon einen Termin am ${c.oldSlot}. Können wir stattdessen den verschieben?`,
  cancelReminderReply: () => 'Ich muss den Termin leider absagen, tut mir leid.',
  cancelReply: (c) => `Eigentlich möchte ich meinen Termin am ${c.oldSlot} absagen.`,
  callbackReminderReply: () => 'Könnte mich jemand anrufen? Ich habe vor dem Termin noch eine Frage.',
  callbackReply: (_, when) => `Ich kann gerade nicht sprechen. Könnte mich jemand ${when} zurückrufen?`,
  pendingReminderReply: () => 'Ich weiß noch nicht, ob ich kann, ich gebe morgen Bescheid.',
  pendingReply: (_, reason) => `Ich bin mir noch nicht sicher, ich muss erst ${reason}.`,
  stopMessagesReply: () => 'STOPP',
  stopCallsReplies: () => ['Bitte kontaktieren Sie mich nicht mehr.', 'Kein Interesse. Bitte löschen Sie meine Nummer aus Ihrer Liste.'],

  confirmation: (c) => (c.channel === 'whatsapp' ? 'Sie erhalten hier gleich eine Bestätigung.' : 'Sie erhalten eine Bestätigung per WhatsApp.'),
  reminderConfirmed: (c) => `Vielen Dank, ${c.first}! Ihr Termin am ${c.oldSlot} ist bestätigt. Bis dann.`,
  offerSlots: (c) => `Ich hätte am ${c.altSlot} oder am ${c.slot} etwas frei. Was passt Ihnen besser?`,
  slotChoices: (c) => [`Am ${c.slot} passt es mir gut.`, 'Der zweite, bitte.'],
  booked: (c, confirmation) => `Perfekt, Ihr Termin ${deZu(c.service)} am ${c.slot} ist gebucht. ${confirmation}`,
  bookedThanks: () => ['Super, vielen Dank!', 'Danke, bis dann.'],
  moveOffer: (c) => `Kein Problem. Ich kann den Termin auf ${c.altSlot} oder auf ${c.slot} verschieben.`,
  moveChoice: (c) => `${c.slot}, bitte.`,
  moved: (c, confirmation) => `Erledigt: Ihr Termin wurde vom ${c.oldSlot} auf ${c.slot} verschoben. ${confirmation}`,
  movedThanks: () => 'Danke schön.',
  cancelOffer: () => 'Verstehe. Möchten Sie den Termin stattdessen auf einen anderen Tag verschieben?',
  cancelDeclines: () => ['Nein, im Moment nicht, danke.', 'Nein danke, ich melde mich, wenn es wieder passt.'],
  cancelled: (c) =>
    `Alles klar. Ich habe Ihren Termin am ${c.oldSlot} storniert. Sie können sich jederzeit melden, wenn Sie einen neuen Termin vereinbaren möchten.`,
  callbackOffer: () =>
    'Dabei kann ich Ihnen leider nicht selbst weiterhelfen, aber ich kann jemanden aus unserem Team bitten, Sie zurückzurufen. Wann passt es Ihnen am besten?',
  callbackWhen: (_, when) => `${capitalise(when)} wäre super.`,
  callbackArranged: (c, when) => `Erledigt. Jemand von ${c.clinic} ruft Sie ${when} zurück.`,
  callbackNoted: (_, when) => `Natürlich. Ich habe notiert, dass Sie jemand aus unserem Team ${when} zurückruft.`,
  callbackBye: () => 'Danke, tschüss.',
  pendingReminder: (c) => `Kein Problem, antworten Sie einfach hier, sobald Sie es wissen. Wir halten Ihren Termin am ${c.oldSlot} vorerst für Sie frei.`,
  priceAnswer: (c) => `${capitalise(deEin(c.service, 'nom'))} kostet ${c.price}. Soll ich einen Termin für Sie buchen?`,
  needTo: (_, reason) => `Ich muss erst ${reason}.`,
  whenReady: (c) =>
    `Natürlich. ${c.channel === 'whatsapp' ? 'Antworten Sie einfach hier' : 'Rufen Sie uns an oder schreiben Sie uns per WhatsApp'}, sobald Sie so weit sind, dann suche ich Ihnen einen Termin.`,
  sendTimes: (c) =>
    `Kein Problem. Ich schicke Ihnen unsere freien Termine per ${c.channel === 'whatsapp' ? 'Nachricht' : 'WhatsApp'}, dann können Sie in Ruhe entscheiden.`,
  pendingAcks: () => ['Okay, ich melde mich.', 'Klingt gut, danke.'],
  unsubscribed: (c) =>
    `Sie wurden abgemeldet und erhalten keine weiteren Nachrichten von ${c.clinic}. Antworten Sie mit START, falls Sie es sich anders überlegen.`,
  removed: () => 'Entschuldigen Sie die Störung. Ich habe Ihre Nummer aus unseren Anruf- und Nachrichtenlisten entfernt, Sie werden nicht mehr kontaktiert.',

  dropped: () => [
    'Hallo? Hallo... Ich verstehe Sie ganz schlecht.',
    'Entschuldigung, die Verbindung scheint schlecht zu sein. Könnten Sie das bitte wiederholen?',
    '(Die Verbindung brach ab; der Rückruf kam nicht zustande.)',
  ],
  droppedSummary: (c) => `Der Anruf brach ab, bevor das Anliegen ${ofPatient(c)} geklärt werden konnte, und beim Rückruf war die Nummer nicht erreichbar.`,
  unavailable: [
    ['Die gewählte Rufnummer ist zurzeit nicht erreichbar. Bitte versuchen Sie es später noch einmal.', 'die Nummer war nicht erreichbar'],
    ['Kein Anschluss unter dieser Nummer.', 'unter der Nummer besteht kein Anschluss'],
  ],
  callEnded: () => '(Anruf beendet: Die Nummer war nicht erreichbar.)',
  unavailableSummary: (c, why) => `Der Anruf ${topic(c)} erreichte ${c.female ? 'die Patientin' : 'den Patienten'} nicht: ${why}.`,
  askedAbout: (c) => `Hallo, ich wollte nach ${deEin(c.service, 'dat')} fragen.`,
  stillBooking: (c) => `Hallo ${c.first}, ich wollte nur nachfragen, ob Sie noch einen Termin buchen möchten. Antworten Sie einfach hier, wann es Ihnen passt.`,
  stoppedReplyingSummary: (c) =>
    `${patient(c)} fragte per WhatsApp nach ${deEin(c.service, 'dat')}, antwortete aber nicht mehr, bevor ein Termin gebucht werden konnte.`,
  sawMessage: (c) => `Hallo ${c.first}, ich wollte nur nachfragen, ob Sie unsere Nachricht gesehen haben. Antworten Sie einfach hier, wann es Ihnen passt.`,
  noReplySummary: (c) => `${patient(c)} hat auf die WhatsApp-Nachricht ${topic(c)} nicht geantwortet, auch nicht nach einer Erinnerung.`,

  summaries: {
    bookedReminder: (c) => `${patient(c)} hat den Termin ${deZu(c.service)} am ${c.oldSlot} auf die WhatsApp-Erinnerung hin bestätigt.`,
    bookedInbound: (c) => `${patient(c)} meldete sich ${contact(c)}, um ${deEin(c.service, 'acc')} zu buchen, und erhielt einen Termin am ${c.slot}.`,
    bookedByPatient: (c) => `${patient(c)} buchte ${deEin(c.service, 'acc')} für ${c.slot} ${context(c)}.`,
    bookedScheduled: (c) => `${capitalise(deEin(c.service, 'nom'))} wurde ${context(c)} für ${c.slot} eingeplant.`,
    rescheduled: (c) => `${patient(c)} hat den Termin ${deZu(c.service)} vom ${c.oldSlot} auf ${c.slot} verschoben.`,
    moved: (c) => `Der Termin ${deZu(c.service)} wurde auf Wunsch ${ofPatient(c)} vom ${c.oldSlot} auf ${c.slot} verlegt.`,
    cancelled: (c) => `${patient(c)} hat den Termin ${deZu(c.service)} am ${c.oldSlot} abgesagt und möchte vorerst keinen neuen vereinbaren.`,
    callbackInbound: (c, questionTopic, when) =>
      `${patient(c)} meldete sich ${contact(c)} mit einem Anliegen ${questionTopic} und bat um einen Rückruf ${when}.`,
    callbackReminder: (c, when) => `${patient(c)} bat um einen Anruf ${when}, da vor dem Termin am ${c.oldSlot} noch eine Frage offen ist.`,
    callback: (c, when) => `${patient(c)} bat um einen Rückruf ${when} ${topic(c)}.`,
    pendingReminder: (c) => `${patient(c)} hat den Termin am ${c.oldSlot} noch nicht bestätigt und meldet sich, sobald ${deEr(c.female)} weiß, ob es passt.`,
    pendingPrice: (c, reason) =>
      `${patient(c)} fragte nach dem Preis für ${deEin(c.service, 'acc')} (${c.price}) und möchte erst ${reason}, bevor ${deEr(c.female)} sich entscheidet.`,
    pending: (c, reason) =>
      `${patient(c)} interessiert sich für ${deEin(c.service, 'acc')}, möchte aber erst ${reason}, bevor ${deEr(c.female)} sich entscheidet.`,
    optOut: (c) =>
      `${patient(c)} möchte nicht mehr kontaktiert werden und wurde aus den ${c.channel === 'voice' ? 'Anruflisten' : 'WhatsApp-Listen'} entfernt.`,
  },
};
