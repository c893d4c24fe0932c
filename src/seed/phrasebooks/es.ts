// Spanish (the clinics in Spain and Mexico): the assistant addresses patients as "usted", in words
// both countries use.

import { capitalise, esEl, esO, esUn } from './grammar.js';
import type { Conversation, Phrasebook } from './phrasebook.js';

/** "El paciente" / "La paciente". */
const patient = (c: Conversation): string => (c.female ? 'La paciente' : 'El paciente');
/** "del paciente" / "de la paciente". */
const ofPatient = (c: Conversation): string => (c.female ? 'de la paciente' : 'del paciente');
/** The pronoun that stands for the service ("¿Quiere que le reserve una?"). */
const one = (c: Conversation): string => (c.service.gender === 'f' ? 'una' : 'uno');

/** What the clinic was getting in touch about, as a noun phrase ("su cita del martes 14 de marzo a las 10:30"). */
function topic(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND' || c.type === 'CAMPAIGN_CALLBACK') return `su solicitud de información sobre ${esEl(service)}`;
  if (c.type === 'APPOINTMENT_REMINDER') return `su cita del ${c.oldSlot}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `la cita de ${service.text} a la que no acudió`;
    case 'reactivation':
      return 'una nueva visita a la clínica';
    case 'follow_up':
      return 'el seguimiento de su última visita';
    case 'recall':
      return `su ${service.text} periódic${esO(service.gender === 'f')}`;
    case 'custom':
      return `la promoción de este mes en ${esEl(service)}`;
    case 'appointment_reminder':
      return `su cita del ${c.oldSlot}`;
    default:
      return esUn(service);
  }
}

function pitch(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND')
    return `Nos dejó sus datos en el formulario de nuestra web para pedir información sobre ${esUn(service)}. ¿Es un buen momento para buscarle una cita?`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Le devuelvo la llamada, como nos pidió, por su solicitud de información sobre ${esEl(service)}.`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `Vimos que no pudo acudir a su cita de ${service.text} del ${c.missedSlot}. ¿Le gustaría reservar una nueva?`;
    case 'reactivation':
      return `Hace tiempo que no nos visita y nos encantaría volver a verle. ¿Le gustaría reservar ${esUn(service)}?`;
    case 'follow_up':
      return 'Nos ponemos en contacto para hacer el seguimiento de su última visita. ¿Cómo se encuentra? También podemos programar su cita de revisión.';
    case 'recall':
      return `Ya le toca su ${service.text} periódic${esO(service.gender === 'f')}. ¿Buscamos un horario que le venga bien?`;
    case 'custom':
      return `Este mes ofrecemos ${esUn(service)} por ${c.price}. ¿Le gustaría reservar ${one(c)}?`;
    default:
      return `Nos ponemos en contacto con usted por su cita del ${c.oldSlot}.`;
  }
}

function voicemailReason(c: Conversation): string {
  const service = c.service;
  if (c.type === 'FORM_OUTBOUND') return `Le llamamos por el formulario que nos envió sobre ${esUn(service)}`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `Le devolvemos la llamada por su solicitud de información sobre ${esEl(service)}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return 'No pudimos verle en su última cita y nos gustaría ayudarle a reservar otra';
    case 'reactivation':
      return 'Hace tiempo que no nos visita y nos encantaría volver a verle';
    case 'follow_up':
      return 'Le llamamos para saber cómo se encuentra después de su visita';
    case 'recall':
      return `Ya le toca su ${service.text} periódic${esO(service.gender === 'f')}`;
    case 'custom':
      return `Este mes tenemos una oferta especial en ${esEl(service)}`;
    default:
      return `Le llamamos por su cita del ${c.oldSlot}`;
  }
}

/** How the booking came about, after "para el <slot>". */
function context(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return 'tras una solicitud en el formulario de la web';
  if (c.type === 'CAMPAIGN_CALLBACK') return 'durante la llamada que había solicitado';
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `tras la ausencia a su cita del ${c.missedSlot}`;
    case 'reactivation':
      return 'en respuesta a la campaña de reactivación';
    case 'follow_up':
      return 'durante el seguimiento posterior a su visita';
    case 'recall':
      return 'en respuesta al aviso de revisión periódica';
    case 'custom':
      return 'en respuesta a la campaña promocional';
    default:
      return 'cuando la clínica se puso en contacto';
  }
}

const contact = (c: Conversation): string => (c.channel === 'voice' ? 'llamó' : 'escribió por WhatsApp');

export const es: Phrasebook = {
  when: ['mañana por la mañana', 'esta tarde', 'después de las 5', 'el lunes por la mañana', 'hoy más tarde', 'mañana después de comer'],
  reasons: [
    ['mirar mi horario de trabajo', 'mirar su horario de trabajo'],
    ['hablarlo con mi pareja', 'hablarlo con su pareja'],
    ['comprobar qué cubre mi seguro', 'comprobar qué cubre su seguro'],
    ['pensar en el precio', 'pensar en el precio'],
    ['mirar mi agenda', 'mirar su agenda'],
  ],
  questions: [
    ['Tengo una pregunta sobre mi última factura.', 'su última factura'],
    ['Me gustaría hablar con alguien sobre mi plan de tratamiento.', 'su plan de tratamiento'],
    ['Tengo una duda sobre la cobertura de mi seguro.', 'la cobertura de su seguro'],
    ['¿Me pueden enviar una copia de mis resultados?', 'una copia de sus resultados'],
  ],

  noAnswer: (c) => `(Sin respuesta tras ${c.seconds} segundos de llamada; no se detectó buzón de voz.)`,
  noAnswerSummary: (c) => `La llamada sobre ${topic(c)} no fue atendida tras ${c.seconds} segundos y no se dejó mensaje en el buzón de voz.`,
  voicemailGreetings: (c) => [
    `Hola, soy ${c.first}. Ahora no puedo atender el teléfono, deja tu mensaje después de la señal.`,
    'El número al que llama no está disponible en este momento. Deje su mensaje después de la señal.',
  ],
  voicemailMessage: (c) =>
    `Hola, ${c.first}, le habla ${c.agent}, de ${c.clinic}. ${voicemailReason(c)}. Por favor, llámenos al ${c.clinicPhone} o responda a nuestro mensaje de WhatsApp. ¡Gracias!`,
  voicemailSummary: (c) =>
    `La llamada llegó al buzón de voz; se dejó un mensaje sobre ${topic(c)} pidiendo ${c.female ? 'a la paciente' : 'al paciente'} que devolviera la llamada.`,

  reminder: (c) =>
    `Hola, ${c.first}, le recordamos su cita de ${c.service.text} en ${c.clinic} el ${c.oldSlot}. Responda SÍ para confirmar, o díganos si necesita cambiarla o cancelarla.`,
  whatsappOpening: (c) => `¡Hola, ${c.first}! Soy ${c.agent}, la asistente virtual de ${c.clinic}. ${pitch(c)}`,
  callCheck: (c) => `Hola, ¿hablo con ${c.first}?`,
  callCheckAnswers: () => ['Sí, soy yo.', 'Sí, ¿quién llama?', 'Hola, sí, dígame.'],
  callIntro: (c) => `Hola, ${c.first}, soy ${c.agent}, la asistente virtual de ${c.clinic}. ${pitch(c)}`,
  inboundCallGreeting: (c) => `Gracias por llamar a ${c.clinic}. Soy ${c.agent}, la asistente virtual. ¿En qué puedo ayudarle?`,
  messageThanks: (c) => `Hola, ${c.first}, ¡gracias por su mensaje!`,

  changeRequest: (c) => `Hola, necesito cambiar mi cita del ${c.oldSlot}.`,
  cancelRequest: (c) => `Hola, lo siento, pero tengo que cancelar mi cita del ${c.oldSlot}.`,
  priceRequest: (c) => `Hola, ¿cuánto cuesta ${esUn(c.service)}?`,
  stopMessagesRequest: () => 'Por favor, dejen de enviarme estos mensajes.',
  stopCallsRequest: () => 'Por favor, dejen de llamarme por las citas, recibo demasiadas llamadas.',
  bookRequests: (c) => [`Hola, me gustaría pedir cita para ${esUn(c.service)}.`, `Hola, ¿tienen disponibilidad para ${esUn(c.service)} la semana que viene?`],

  confirmReplies: () => ['SÍ', 'Sí, confirmada. ¡Hasta entonces!', 'Sí, allí estaré, gracias.'],
  acceptReplies: () => ['Sí, me vendría muy bien.', 'Claro, vamos a reservarla.', 'Sí, por favor, tenía pendiente ponerme en contacto con ustedes.'],
  moveReminderReply: () => 'Ese día no puedo. ¿Podríamos cambiarla?',
  moveReply: (c) => `En realidad ya tengo una cita el ${c.oldSlot}. ¿Podríamos cambiar esa?`,
  cancelReminderReply: () => 'Tengo que cancelarla, lo siento.',
  cancelReply: (c) => `En realidad, quería cancelar la cita que tengo el ${c.oldSlot}.`,
  callbackReminderReply: () => '¿Podría llamarme alguien? Tengo una pregunta antes de la cita.',
  callbackReply: (_, when) => `Ahora no puedo hablar. ¿Podría llamarme alguien ${when}?`,
  pendingReminderReply: () => 'Todavía no sé si podré ir, lo confirmo mañana.',
  pendingReply: (c, reason) => `Todavía no estoy segur${esO(c.female)}, primero tengo que ${reason}.`,
  stopMessagesReply: () => 'BAJA',
  stopCallsReplies: () => ['Por favor, dejen de llamarme.', 'No me interesa. Por favor, borren mi número de su lista.'],

  confirmation: (c) => (c.channel === 'whatsapp' ? 'En breve recibirá aquí una confirmación.' : 'Recibirá una confirmación por WhatsApp.'),
  reminderConfirmed: (c) => `¡Gracias, ${c.first}! Su cita del ${c.oldSlot} queda confirmada. Hasta entonces.`,
  offerSlots: (c) => `Tengo disponibilidad el ${c.altSlot} o el ${c.slot}. ¿Qué le viene mejor?`,
  slotChoices: (c) => [`El ${c.slot} me viene bien.`, 'La segunda, por favor.'],
  booked: (c, confirmation) => `Perfecto, su ${c.service.text} queda reservad${esO(c.service.gender === 'f')} para el ${c.slot}. ${confirmation}`,
  bookedThanks: () => ['¡Genial, gracias!', 'Gracias, hasta entonces.'],
  moveOffer: (c) => `Sin problema. Puedo pasarla al ${c.altSlot} o al ${c.slot}.`,
  moveChoice: (c) => `El ${c.slot}, por favor.`,
  moved: (c, confirmation) => `Listo: he cambiado su cita del ${c.oldSlot} al ${c.slot}. ${confirmation}`,
  movedThanks: () => 'Gracias.',
  cancelOffer: () => 'Entiendo. ¿Prefiere cambiarla a otro día en lugar de cancelarla?',
  cancelDeclines: () => ['No, por ahora no, gracias.', 'No, gracias, ya les diré algo cuando pueda.'],
  cancelled: (c) => `Entendido, he tramitado la cancelación de su cita del ${c.oldSlot}. Puede contactarnos cuando quiera para pedir una nueva cita.`,
  callbackOffer: () => 'No puedo ayudarle con eso yo misma, pero puedo pedir a alguien del equipo que le llame. ¿Cuándo le viene mejor?',
  callbackWhen: (_, when) => `${capitalise(when)} me vendría muy bien.`,
  callbackArranged: (c, when) => `Hecho. Alguien de ${c.clinic} le llamará ${when}.`,
  callbackNoted: (_, when) => `Por supuesto. He anotado que alguien de nuestro equipo le devolverá la llamada ${when}.`,
  callbackBye: () => 'Gracias, adiós.',
  pendingReminder: (c) => `No hay problema, responda aquí cuando lo sepa. De momento mantenemos su cita del ${c.oldSlot}.`,
  priceAnswer: (c) => `${capitalise(esUn(c.service))} cuesta ${c.price}. ¿Quiere que le reserve ${one(c)}?`,
  needTo: (_, reason) => `Primero tengo que ${reason}.`,
  whenReady: (c) =>
    `Por supuesto. ${c.channel === 'whatsapp' ? 'Responda aquí' : 'Llámenos o escríbanos por WhatsApp'} cuando lo tenga decidido y le buscaré un horario.`,
  sendTimes: (c) =>
    `No hay ningún problema. Le enviaré nuestros horarios disponibles por ${c.channel === 'whatsapp' ? 'mensaje' : 'WhatsApp'} para que decida con calma.`,
  pendingAcks: () => ['De acuerdo, ya les digo algo.', 'Me parece bien, gracias.'],
  unsubscribed: (c) => `Se ha dado de baja y no recibirá más mensajes de ${c.clinic}. Responda ALTA si cambia de opinión.`,
  removed: () => 'Disculpe las molestias. He eliminado su número de nuestras listas de llamadas y mensajes, y no volveremos a contactarle.',

  dropped: () => [
    '¿Hola? ¿Hola...? No le oigo bien.',
    'Lo siento, parece que la línea se corta. ¿Podría repetirlo, por favor?',
    '(La llamada se cortó; al devolverla no se pudo establecer la conexión.)',
  ],
  droppedSummary: (c) =>
    `La llamada se cortó antes de poder identificar el motivo ${ofPatient(c)}, y no se pudo contactar con el número al devolver la llamada.`,
  unavailable: [
    ['El número marcado no está disponible en este momento. Por favor, inténtelo más tarde.', 'el número no estaba disponible'],
    ['El número al que llama está fuera de servicio.', 'el número está fuera de servicio'],
  ],
  callEnded: () => '(Llamada finalizada: no se pudo contactar con el número.)',
  unavailableSummary: (c, why) => `No se pudo contactar con ${c.female ? 'la paciente' : 'el paciente'} sobre ${topic(c)}: ${why}.`,
  askedAbout: (c) => `Hola, quería preguntar por ${esUn(c.service)}.`,
  stillBooking: (c) => `Hola, ${c.first}, solo quería saber si sigue interesad${esO(c.female)} en reservar. Responda aquí cuando le venga bien.`,
  stoppedReplyingSummary: (c) => `${patient(c)} preguntó por ${esUn(c.service)} por WhatsApp, pero dejó de responder antes de poder reservar la cita.`,
  sawMessage: (c) => `Hola, ${c.first}, solo quería confirmar que ha visto nuestro mensaje. Responda aquí cuando le venga bien.`,
  noReplySummary: (c) => `${patient(c)} no respondió al mensaje de WhatsApp sobre ${topic(c)}, ni siquiera tras un recordatorio.`,

  summaries: {
    bookedReminder: (c) => `${patient(c)} confirmó su cita de ${c.service.text} del ${c.oldSlot} en respuesta al recordatorio por WhatsApp.`,
    bookedInbound: (c) => `${patient(c)} ${contact(c)} para reservar ${esUn(c.service)} y se le dio cita para el ${c.slot}.`,
    bookedByPatient: (c) => `${patient(c)} reservó ${esUn(c.service)} para el ${c.slot} ${context(c)}.`,
    bookedScheduled: (c) => `Se programó ${esUn(c.service)} para el ${c.slot} ${context(c)}.`,
    rescheduled: (c) => `${patient(c)} cambió su cita de ${c.service.text} del ${c.oldSlot} al ${c.slot}.`,
    moved: (c) => `La cita de ${c.service.text} se trasladó del ${c.oldSlot} al ${c.slot} a petición ${ofPatient(c)}.`,
    cancelled: (c) => `${patient(c)} canceló su cita de ${c.service.text} del ${c.oldSlot} y por ahora prefiere no pedir otra.`,
    callbackInbound: (c, questionTopic, when) =>
      `${patient(c)} ${contact(c)} para preguntar por ${questionTopic} y pidió que alguien del equipo le devolviera la llamada ${when}.`,
    callbackReminder: (c, when) => `${patient(c)} pidió que le llamaran ${when} porque tiene una pregunta antes de su cita del ${c.oldSlot}.`,
    callback: (c, when) => `${patient(c)} pidió que le devolvieran la llamada ${when} para hablar sobre ${topic(c)}.`,
    pendingReminder: (c) => `${patient(c)} aún no ha confirmado su cita del ${c.oldSlot} y responderá cuando sepa si puede acudir.`,
    pendingPrice: (c, reason) => `${patient(c)} preguntó el precio de ${esUn(c.service)} (${c.price}) y decidirá después de ${reason}.`,
    pending: (c, reason) => `${patient(c)} está interesad${esO(c.female)} en ${esUn(c.service)}, pero necesita ${reason} antes de decidirse.`,
    optOut: (c) =>
      `${patient(c)} pidió que no se le volviera a contactar y se le ha excluido de ${c.channel === 'voice' ? 'las llamadas' : 'los mensajes de WhatsApp'}.`,
  },
};
