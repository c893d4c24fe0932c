// French (the clinics in France): the assistant addresses patients as "vous".

import { capitalise, frDe, frE, frLe, frSon, frUn } from './grammar.js';
import type { Conversation, Phrasebook } from './phrasebook.js';

/** "Le patient" / "La patiente". */
const patient = (c: Conversation): string => (c.female ? 'La patiente' : 'Le patient');
/** "du patient" / "de la patiente". */
const ofPatient = (c: Conversation): string => (c.female ? 'de la patiente' : 'du patient');
/** The agreement with the patient ("intéressée"). */
const e = (c: Conversation): string => frE(c.female);
/** The pronoun that stands for the service ("Voulez-vous que je vous en réserve une ?"). */
const one = (c: Conversation): string => (c.service.gender === 'f' ? 'une' : 'un');

/** What the clinic was getting in touch about, as a noun phrase ("son rendez-vous du mardi 14 mars à 10h30"). */
function topic(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND' || c.type === 'CAMPAIGN_CALLBACK') return `sa demande d'information sur ${frLe(service)}`;
  if (c.type === 'APPOINTMENT_REMINDER') return `son rendez-vous du ${c.oldSlot}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `son rendez-vous manqué pour ${frUn(service)}`;
    case 'reactivation':
      return "la prise d'un nouveau rendez-vous";
    case 'follow_up':
      return 'le suivi de sa dernière visite';
    case 'recall':
      return `${frSon(service)} périodique`;
    case 'custom':
      return `l'offre du mois sur ${frLe(service)}`;
    case 'appointment_reminder':
      return `son rendez-vous du ${c.oldSlot}`;
    default:
      return frUn(service);
  }
}

function pitch(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND')
    return `Vous avez rempli notre formulaire en ligne pour ${frUn(service)}. Est-ce un bon moment pour vous trouver un rendez-vous ?`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Je vous rappelle, comme vous l'avez demandé, au sujet de votre demande concernant ${frLe(service)}.`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `Vous n'avez pas pu venir à votre rendez-vous du ${c.missedSlot} pour ${frUn(service)}. Souhaitez-vous en fixer un nouveau ?`;
    case 'reactivation':
      return `Votre dernière visite remonte à un moment et nous serions ravis de vous revoir. Souhaitez-vous prendre rendez-vous pour ${frUn(service)} ?`;
    case 'follow_up':
      return 'Nous prenons de vos nouvelles après votre récente visite. Comment vous sentez-vous ? Nous pouvons aussi planifier votre rendez-vous de suivi.';
    case 'recall':
      return `C'est le moment de votre ${service.text} périodique. Voulez-vous que nous trouvions un créneau qui vous convienne ?`;
    case 'custom':
      return `Ce mois-ci, nous proposons ${frUn(service)} à ${c.price}. Souhaitez-vous en réserver ${one(c)} ?`;
    default:
      return `Nous vous contactons au sujet de votre rendez-vous du ${c.oldSlot}.`;
  }
}

function voicemailReason(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND') return `Nous vous appelons au sujet du formulaire que vous avez rempli pour ${frUn(service)}`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Nous vous rappelons au sujet de votre demande concernant ${frLe(service)}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return 'Vous avez manqué votre dernier rendez-vous et nous serions heureux de vous aider à en reprendre un';
    case 'reactivation':
      return 'Votre dernière visite remonte à un moment et nous serions ravis de vous revoir';
    case 'follow_up':
      return 'Nous vous appelons pour savoir comment vous vous sentez après votre visite';
    case 'recall':
      return `C'est le moment de votre ${service.text} périodique`;
    case 'custom':
      return `Nous avons une offre spéciale ce mois-ci sur ${frLe(service)}`;
    default:
      return `Nous vous appelons au sujet de votre rendez-vous du ${c.oldSlot}`;
  }
}

/** How the booking came about, after "pour le <slot>". */
function context(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return "à la suite d'une demande via le formulaire en ligne";
  if (c.type === 'CAMPAIGN_CALLBACK') return 'lors du rappel demandé';
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `après un rendez-vous manqué le ${c.missedSlot}`;
    case 'reactivation':
      return 'en réponse à la campagne de réactivation';
    case 'follow_up':
      return 'lors du suivi après sa visite';
    case 'recall':
      return 'en réponse au rappel de contrôle périodique';
    case 'custom':
      return 'en réponse à la campagne promotionnelle';
    default:
      return "à la suite d'un contact du cabinet";
  }
}

const contact = (c: Conversation): string => (c.channel === 'voice' ? 'appelé' : 'écrit sur WhatsApp');

export const fr: Phrasebook = {
  when: ['demain matin', 'cet après-midi', 'après 17 h', 'lundi matin', 'plus tard dans la journée', 'demain après le déjeuner'],
  reasons: [
    ['vérifier mon planning de travail', 'vérifier son planning de travail'],
    ['en parler en famille', 'en parler en famille'],
    ['vérifier ce que ma mutuelle rembourse', 'vérifier ce que sa mutuelle rembourse'],
    ['réfléchir au prix', 'réfléchir au prix'],
    ['regarder mon agenda', 'regarder son agenda'],
  ],
  questions: [
    ["J'ai une question sur ma dernière facture.", 'sa dernière facture'],
    ["J'aimerais parler à quelqu'un de mon plan de traitement.", 'son plan de traitement'],
    ["J'ai une question sur ma prise en charge par la mutuelle.", 'sa prise en charge par la mutuelle'],
    ["Est-ce que je peux avoir une copie de mes résultats d'analyses ?", 'une copie de ses résultats'],
  ],

  noAnswer: (c) => `(Pas de réponse après ${c.seconds} secondes de sonnerie ; aucune messagerie détectée.)`,
  noAnswerSummary: (c) => `L'appel concernant ${topic(c)} est resté sans réponse après ${c.seconds} secondes et aucun message n'a été laissé.`,
  voicemailGreetings: (c) => [
    `Bonjour, vous êtes bien sur la messagerie de ${c.first}. Je ne peux pas vous répondre pour le moment, laissez-moi un message après le bip.`,
    "Votre correspondant n'est pas disponible. Veuillez laisser un message après le bip sonore.",
  ],
  voicemailMessage: (c) =>
    `Bonjour ${c.first}, ici ${c.agent} de ${c.clinic}. ${voicemailReason(c)}. Merci de nous rappeler au ${c.clinicPhone} ou de répondre à notre message WhatsApp. Merci et à bientôt !`,
  voicemailSummary: (c) =>
    `L'appel a abouti sur la messagerie ; un message concernant ${topic(c)} a été laissé pour demander ${c.female ? 'à la patiente' : 'au patient'} de rappeler.`,

  reminder: (c) =>
    `Bonjour ${c.first}, nous vous rappelons votre rendez-vous pour ${frUn(c.service)} chez ${c.clinic} le ${c.oldSlot}. Répondez OUI pour confirmer, ou dites-nous si vous devez le déplacer ou l'annuler.`,
  whatsappOpening: (c) => `Bonjour ${c.first} ! Ici ${c.agent}, l'assistante virtuelle de ${c.clinic}. ${pitch(c)}`,
  callCheck: (c) => `Bonjour, suis-je bien en ligne avec ${c.first} ?`,
  callCheckAnswers: () => ["Oui, c'est moi.", "Oui, qui est à l'appareil ?", "Bonjour, oui, c'est bien moi."],
  callIntro: (c) => `Bonjour ${c.first}, ici ${c.agent}, l'assistante virtuelle de ${c.clinic}. ${pitch(c)}`,
  inboundCallGreeting: (c) => `Merci d'avoir appelé ${c.clinic}. Ici ${c.agent}, l'assistante virtuelle. Comment puis-je vous aider ?`,
  messageThanks: (c) => `Bonjour ${c.first}, merci pour votre message !`,

  changeRequest: (c) => `Bonjour, je dois déplacer mon rendez-vous du ${c.oldSlot}.`,
  cancelRequest: (c) => `Bonjour, je dois malheureusement annuler mon rendez-vous du ${c.oldSlot}.`,
  priceRequest: (c) => `Bonjour, combien coûte ${frUn(c.service)} ?`,
  stopMessagesRequest: () => "Merci d'arrêter de m'envoyer ces messages.",
  stopCallsRequest: () => "Merci d'arrêter de m'appeler pour des rendez-vous, je reçois trop d'appels.",
  bookRequests: (c) => [
    `Bonjour, je voudrais prendre rendez-vous pour ${frUn(c.service)}.`,
    `Bonjour, avez-vous des disponibilités pour ${frUn(c.service)} la semaine prochaine ?`,
  ],

  confirmReplies: () => ['OUI', "Oui, c'est confirmé. À bientôt !", 'Oui, je serai là, merci.'],
  acceptReplies: () => ['Oui, avec plaisir.', "D'accord, réservons.", 'Oui, volontiers, je comptais justement vous contacter.'],
  moveReminderReply: () => 'Je ne suis pas disponible ce jour-là. Pourrait-on le déplacer ?',
  moveReply: (c) => `En fait, j'ai déjà un rendez-vous le ${c.oldSlot}. Pourrait-on plutôt déplacer celui-là ?`,
  cancelReminderReply: (c) => `Je dois l'annuler, désolé${e(c)}.`,
  cancelReply: (c) => `En fait, je voudrais annuler le rendez-vous que j'ai le ${c.oldSlot}.`,
  callbackReminderReply: () => "Quelqu'un pourrait-il me rappeler ? J'ai une question avant le rendez-vous.",
  callbackReply: (_, when) => `Je ne peux pas parler maintenant. Quelqu'un pourrait-il me rappeler ${when} ?`,
  pendingReminderReply: () => 'Je ne sais pas encore si je pourrai venir, je confirme demain.',
  pendingReply: (c, reason) => `Je ne suis pas encore sûr${e(c)}, je dois d'abord ${reason}.`,
  stopMessagesReply: () => 'STOP',
  stopCallsReplies: () => ['Merci de ne plus me contacter.', "Ça ne m'intéresse pas. Merci de retirer mon numéro de votre liste."],

  confirmation: (c) =>
    c.channel === 'whatsapp' ? 'Vous allez recevoir une confirmation ici dans un instant.' : 'Vous recevrez une confirmation par WhatsApp.',
  reminderConfirmed: (c) => `Merci, ${c.first} ! Votre rendez-vous du ${c.oldSlot} est confirmé. À bientôt.`,
  offerSlots: (c) => `J'ai des disponibilités le ${c.altSlot} ou le ${c.slot}. Qu'est-ce qui vous conviendrait le mieux ?`,
  slotChoices: (c) => [`Le ${c.slot}, ça me va.`, "Le deuxième, s'il vous plaît."],
  booked: (c, confirmation) => `Parfait, votre rendez-vous pour ${frUn(c.service)} est fixé au ${c.slot}. ${confirmation}`,
  bookedThanks: () => ['Super, merci !', 'Merci, à bientôt.'],
  moveOffer: (c) => `Pas de problème. Je peux le déplacer au ${c.altSlot} ou au ${c.slot}.`,
  moveChoice: (c) => `Le ${c.slot}, s'il vous plaît.`,
  moved: (c, confirmation) => `C'est fait : votre rendez-vous a été déplacé du ${c.oldSlot} au ${c.slot}. ${confirmation}`,
  movedThanks: () => 'Merci.',
  cancelOffer: () => 'Je comprends. Souhaitez-vous plutôt le reporter à un autre jour ?',
  cancelDeclines: () => ["Non, pas pour l'instant, merci.", 'Non merci, je vous recontacterai quand je pourrai.'],
  cancelled: (c) =>
    `Entendu, j'ai enregistré l'annulation de votre rendez-vous du ${c.oldSlot}. Vous pouvez nous recontacter quand vous voulez pour en reprendre un.`,
  callbackOffer: () =>
    'Je ne peux pas vous aider moi-même sur ce point, mais je peux demander à un membre de notre équipe de vous rappeler. Quand seriez-vous disponible ?',
  callbackWhen: (_, when) => `${capitalise(when)}, ce serait parfait.`,
  callbackArranged: (c, when) => `C'est noté. Quelqu'un de ${c.clinic} vous rappellera ${when}.`,
  callbackNoted: (_, when) => `Bien sûr. J'ai noté qu'un membre de notre équipe vous rappellera ${when}.`,
  callbackBye: () => 'Merci, au revoir.',
  pendingReminder: (c) => `Pas de problème, répondez simplement ici quand vous saurez. Nous gardons votre rendez-vous du ${c.oldSlot} pour le moment.`,
  priceAnswer: (c) => `${capitalise(frUn(c.service))} coûte ${c.price}. Voulez-vous que je vous en réserve ${one(c)} ?`,
  needTo: (_, reason) => `Je dois d'abord ${reason}.`,
  whenReady: (c) =>
    `Bien sûr. ${c.channel === 'whatsapp' ? 'Répondez simplement ici' : 'Appelez-nous ou envoyez-nous un message WhatsApp'} dès que vous êtes prêt${e(c)}, et je vous trouverai un créneau.`,
  sendTimes: (c) =>
    `Aucun problème. Je vous envoie nos disponibilités par ${c.channel === 'whatsapp' ? 'message' : 'WhatsApp'} pour que vous puissiez décider tranquillement.`,
  pendingAcks: () => ["D'accord, je vous tiens au courant.", 'Très bien, merci.'],
  unsubscribed: (c) => `Vous êtes désinscrit${e(c)} et ne recevrez plus de messages de ${c.clinic}. Répondez START si vous changez d'avis.`,
  removed: (c) => `Toutes nos excuses pour le dérangement. J'ai retiré votre numéro de nos listes d'appels et de messages, vous ne serez plus contacté${e(c)}.`,

  dropped: () => [
    'Allô ? Allô... Je vous entends très mal.',
    "Je suis désolée, la ligne semble couper. Pourriez-vous répéter, s'il vous plaît ?",
    "(L'appel a été coupé ; le rappel du numéro n'a pas abouti.)",
  ],
  droppedSummary: (c) => `L'appel a été coupé avant que la demande ${ofPatient(c)} ait pu être identifiée, et le numéro n'a pas pu être joint lors du rappel.`,
  unavailable: [
    ["Le numéro que vous avez demandé n'est pas disponible. Veuillez rappeler ultérieurement.", 'le numéro était indisponible'],
    ["Le numéro que vous avez demandé n'est pas attribué.", "le numéro n'est pas attribué"],
  ],
  callEnded: () => "(Appel terminé : le numéro n'a pas pu être joint.)",
  unavailableSummary: (c, why) => `${patient(c)} n'a pas pu être joint${e(c)} concernant ${topic(c)} : ${why}.`,
  askedAbout: (c) => `Bonjour, je voulais me renseigner sur ${frUn(c.service)}.`,
  stillBooking: (c) =>
    `Bonjour ${c.first}, je me permets de vous relancer : souhaitez-vous toujours prendre rendez-vous ? Répondez ici quand cela vous arrange.`,
  stoppedReplyingSummary: (c) =>
    `${patient(c)} s'est renseigné${e(c)} sur ${frUn(c.service)} par WhatsApp mais n'a plus répondu avant que le rendez-vous puisse être pris.`,
  sawMessage: (c) => `Bonjour ${c.first}, je voulais m'assurer que vous aviez bien vu notre message. Répondez ici quand cela vous arrange.`,
  noReplySummary: (c) => `${patient(c)} n'a pas répondu au message WhatsApp concernant ${topic(c)}, même après une relance.`,

  summaries: {
    bookedReminder: (c) => `${patient(c)} a confirmé son rendez-vous du ${c.oldSlot} pour ${frUn(c.service)} en réponse au rappel WhatsApp.`,
    bookedInbound: (c) => `${patient(c)} a ${contact(c)} pour réserver ${frUn(c.service)} et a obtenu un rendez-vous le ${c.slot}.`,
    bookedByPatient: (c) => `${patient(c)} a réservé ${frUn(c.service)} pour le ${c.slot} ${context(c)}.`,
    bookedScheduled: (c) => `${capitalise(frUn(c.service))} a été programmé${frE(c.service.gender === 'f')} pour le ${c.slot} ${context(c)}.`,
    rescheduled: (c) => `${patient(c)} a déplacé son rendez-vous pour ${frUn(c.service)} du ${c.oldSlot} au ${c.slot}.`,
    moved: (c) => `Le rendez-vous pour ${frUn(c.service)} a été déplacé du ${c.oldSlot} au ${c.slot} à la demande ${ofPatient(c)}.`,
    cancelled: (c) => `${patient(c)} a annulé son rendez-vous du ${c.oldSlot} pour ${frUn(c.service)} et ne souhaite pas en reprendre pour le moment.`,
    callbackInbound: (c, questionTopic, when) =>
      `${patient(c)} a ${contact(c)} concernant ${questionTopic} et a demandé qu'un membre de l'équipe ${c.female ? 'la' : 'le'} rappelle ${when}.`,
    callbackReminder: (c, when) => `${patient(c)} a demandé à être rappelé${e(c)} ${when} pour une question avant son rendez-vous du ${c.oldSlot}.`,
    callback: (c, when) => `${patient(c)} a demandé à être rappelé${e(c)} ${when} concernant ${topic(c)}.`,
    pendingReminder: (c) =>
      `${patient(c)} n'a pas encore confirmé son rendez-vous du ${c.oldSlot} et répondra dès qu'${c.female ? 'elle' : 'il'} connaîtra ses disponibilités.`,
    pendingPrice: (c, reason) =>
      `${patient(c)} s'est renseigné${e(c)} sur le prix ${frDe(frUn(c.service))} (${c.price}) et décidera après avoir pris le temps ${frDe(reason)}.`,
    pending: (c, reason) => `${patient(c)} est intéressé${e(c)} par ${frUn(c.service)} mais doit d'abord ${reason} avant de se décider.`,
    optOut: (c) =>
      `${patient(c)} a demandé à ne plus être contacté${e(c)} et a été retiré${e(c)} des ${c.channel === 'voice' ? "campagnes d'appels" : 'envois WhatsApp'}.`,
  },
};
