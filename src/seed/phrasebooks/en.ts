// English (the clinics in the United Kingdom and the United States).
import type { Conversation, Phrasebook } from './phrasebook.js';

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The service with its indefinite article ("an eye examination"). */
const aService = (c: Conversation): string => `${/^[aeiou]/i.test(c.service.text) ? 'an' : 'a'} ${c.service.text}`;

/** What the clinic was getting in touch about, as a noun phrase ("their missed dental check-up appointment"). */
function topic(c: Conversation): string {
  const service = c.service.text;
  if (c.type === 'FORM_OUTBOUND' || c.type === 'CAMPAIGN_CALLBACK') return `their ${service} enquiry`;
  if (c.type === 'APPOINTMENT_REMINDER') return `their appointment on ${c.oldSlot}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `their missed ${service} appointment`;
    case 'reactivation':
      return 'booking a return visit';
    case 'follow_up':
      return 'a follow-up after their recent visit';
    case 'recall':
      return `their periodic ${service}`;
    case 'custom':
      return `this month's ${service} offer`;
    case 'appointment_reminder':
      return `their appointment on ${c.oldSlot}`;
    default:
      return aService(c);
  }
}

function pitch(c: Conversation): string {
  const service = c.service.text;
  if (c.type === 'FORM_OUTBOUND') return `You filled in our online form asking about ${aService(c)}. Is now a good time to find you an appointment?`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `I'm calling you back, as you asked, about your ${service} enquiry.`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `We missed you at your ${service} appointment on ${c.missedSlot}. Would you like to book a new time?`;
    case 'reactivation':
      return `It's been a while since your last visit and we'd love to see you again. Would you like to book ${aService(c)}?`;
    case 'follow_up':
      return "We're following up after your recent visit. How are you feeling? We can also schedule your follow-up appointment.";
    case 'recall':
      return `You're due for your periodic ${service}. Shall we find a time that suits you?`;
    case 'custom':
      return `This month we're offering ${aService(c)} for ${c.price}. Would you like to book one?`;
    default:
      return `We're getting in touch about your appointment on ${c.oldSlot}.`;
  }
}

function voicemailReason(c: Conversation): string {
  const service = c.service.text;
  if (c.type === 'FORM_OUTBOUND') return `We're calling about the form you filled in about ${aService(c)}`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `We're returning your call about your ${service} enquiry`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return 'We missed you at your last appointment and would be happy to help you rebook';
    case 'reactivation':
      return "It's been a while since your last visit and we'd love to see you again";
    case 'follow_up':
      return "We're calling to check how you're feeling after your visit";
    case 'recall':
      return `You're due for your periodic ${service}`;
    case 'custom':
      return `We have a special offer on the ${service} this month`;
    default:
      return `We're calling about your appointment on ${c.oldSlot}`;
  }
}

/** How the booking came about, after "was scheduled for <slot>". */
function context(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return 'after submitting a web enquiry form';
  if (c.type === 'CAMPAIGN_CALLBACK') return 'during the callback they had requested';
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `after missing their appointment on ${c.missedSlot}`;
    case 'reactivation':
      return 'in response to the reactivation campaign';
    case 'follow_up':
      return 'during the post-visit follow-up';
    case 'recall':
      return 'in response to the periodic check-up recall';
    case 'custom':
      return 'in response to the promotional campaign';
    default:
      return 'when contacted by the clinic';
  }
}

const contact = (c: Conversation): string => (c.channel === 'voice' ? 'called' : 'messaged on WhatsApp');

export const en: Phrasebook = {
  when: ['tomorrow morning', 'this afternoon', 'after 5 pm', 'on Monday morning', 'later today', 'tomorrow after lunch'],
  reasons: [
    ['check my work schedule', 'check their work schedule'],
    ['talk to my partner', 'talk to their partner'],
    ['check what my insurance covers', 'check what their insurance covers'],
    ['think about the cost', 'think about the cost'],
    ['look at my calendar', 'look at their calendar'],
  ],
  questions: [
    ['I have a question about my last invoice.', 'a question about their last invoice'],
    ["I'd like to talk to someone about my treatment plan.", 'their treatment plan'],
    ['I have a question about my insurance coverage.', 'their insurance coverage'],
    ['Can I get a copy of my test results?', 'a copy of their test results'],
  ],

  noAnswer: (c) => `(No answer after ${c.seconds} seconds of ringing; no voicemail detected.)`,
  noAnswerSummary: (c) => `The call about ${topic(c)} went unanswered after ${c.seconds} seconds and no voicemail was left.`,
  voicemailGreetings: (c) => [
    `Hi, you've reached ${c.first}. I can't take your call right now, please leave a message after the tone.`,
    'The person you are calling is not available. Please leave a message after the tone.',
  ],
  voicemailMessage: (c) =>
    `Hello ${c.first}, this is ${c.agent} from ${c.clinic}. ${voicemailReason(c)}. Please call us back on ${c.clinicPhone} or reply to our WhatsApp message. Thank you!`,
  voicemailSummary: (c) => `The call reached voicemail; a message about ${topic(c)} was left asking the patient to call back.`,

  reminder: (c) =>
    `Hi ${c.first}, this is a reminder of your ${c.service.text} at ${c.clinic} on ${c.oldSlot}. Please reply YES to confirm, or let us know if you need to reschedule or cancel.`,
  whatsappOpening: (c) => `Hi ${c.first}! This is ${c.agent}, the virtual assistant of ${c.clinic}. ${pitch(c)}`,
  callCheck: (c) => `Hello, am I speaking with ${c.first}?`,
  callCheckAnswers: () => ['Yes, speaking.', 'Yes, who is this?', "Hi, yes, that's me."],
  callIntro: (c) => `Hi ${c.first}, this is ${c.agent}, the virtual assistant of ${c.clinic}. ${pitch(c)}`,
  inboundCallGreeting: (c) => `Thank you for calling ${c.clinic}. This is ${c.agent}, the virtual assistant. How can I help you today?`,
  messageThanks: (c) => `Hi ${c.first}, thanks for your message!`,

  changeRequest: (c) => `Hi, I need to change my appointment on ${c.oldSlot}.`,
  cancelRequest: (c) => `Hello, I'm afraid I have to cancel my appointment on ${c.oldSlot}.`,
  priceRequest: (c) => `Hi, how much does ${aService(c)} cost?`,
  stopMessagesRequest: () => 'Please stop sending me these messages.',
  stopCallsRequest: () => 'Please stop calling me about appointments, I get too many calls.',
  bookRequests: (c) => [`Hi, I'd like to book ${aService(c)}.`, `Hello, do you have any availability for ${aService(c)} next week?`],

  confirmReplies: () => ['YES', 'Yes, confirmed. See you then!', 'Yes, I will be there, thanks.'],
  acceptReplies: () => ['Yes, that would be great.', "Sure, let's book it.", "Yes please, I've been meaning to get in touch."],
  moveReminderReply: () => "I can't make it that day. Could we move it?",
  moveReply: (c) => `Actually, I already have an appointment on ${c.oldSlot} - could we move that one instead?`,
  cancelReminderReply: () => 'I need to cancel it, sorry.',
  cancelReply: (c) => `Actually, I'd like to cancel the appointment I have on ${c.oldSlot}.`,
  callbackReminderReply: () => 'Could someone call me? I have a question before the appointment.',
  callbackReply: (_, when) => `I can't talk right now. Could someone call me back ${when}?`,
  pendingReminderReply: () => "I'm not sure I can make it yet, I'll confirm tomorrow.",
  pendingReply: (_, reason) => `I'm not sure yet, I need to ${reason} first.`,
  stopMessagesReply: () => 'STOP',
  stopCallsReplies: () => ['Please stop contacting me.', "I'm not interested. Please remove my number from your list."],

  confirmation: (c) => (c.channel === 'whatsapp' ? "You'll receive a confirmation here shortly." : "You'll receive a confirmation by WhatsApp."),
  reminderConfirmed: (c) => `Thank you, ${c.first}! Your appointment on ${c.oldSlot} is confirmed. See you then.`,
  offerSlots: (c) => `I have availability on ${c.altSlot} or ${c.slot}. Which would suit you better?`,
  slotChoices: (c) => [`${c.slot} works for me.`, 'The second one, please.'],
  booked: (c, confirmation) => `Perfect, your ${c.service.text} is booked for ${c.slot}. ${confirmation}`,
  bookedThanks: () => ['Great, thank you!', 'Thanks, see you then.'],
  moveOffer: (c) => `No problem. I can move it to ${c.altSlot} or ${c.slot}.`,
  moveChoice: (c) => `${c.slot}, please.`,
  moved: (c, confirmation) => `Done - your appointment has been moved from ${c.oldSlot} to ${c.slot}. ${confirmation}`,
  movedThanks: () => 'Thank you.',
  cancelOffer: () => 'I understand. Would you like to reschedule it for another day instead?',
  cancelDeclines: () => ['No, not for now, thanks.', "No thanks, I'll get in touch when I can."],
  cancelled: (c) => `Understood. I've cancelled your appointment on ${c.oldSlot}. You can contact us whenever you'd like to book again.`,
  callbackOffer: () => "I'm not able to help with that myself, but I can ask a member of our team to call you back. When would suit you best?",
  callbackWhen: (_, when) => `${capitalise(when)} would be great.`,
  callbackArranged: (c, when) => `Done. Someone from ${c.clinic} will call you back ${when}.`,
  callbackNoted: (_, when) => `Of course. I've noted that a member of our team will call you back ${when}.`,
  callbackBye: () => 'Thanks, bye.',
  pendingReminder: (c) => `No problem, just reply here when you know. We'll keep your appointment on ${c.oldSlot} for now.`,
  priceAnswer: (c) => `${capitalise(aService(c))} costs ${c.price}. Would you like me to book one for you?`,
  needTo: (_, reason) => `I need to ${reason} first.`,
  whenReady: (c) =>
    `Of course. ${c.channel === 'whatsapp' ? 'Just reply here' : 'Call us or send us a WhatsApp message'} whenever you're ready and I'll find you a time.`,
  sendTimes: (c) =>
    `No problem at all. I'll send you our available times by ${c.channel === 'whatsapp' ? 'message' : 'WhatsApp'} so you can decide when you're ready.`,
  pendingAcks: () => ["Okay, I'll let you know.", 'Sounds good, thanks.'],
  unsubscribed: (c) => `You've been unsubscribed and won't receive further messages from ${c.clinic}. Reply START if you change your mind.`,
  removed: () => "I'm sorry for the inconvenience. I've removed your number from our call and message lists, and you won't be contacted again.",

  dropped: () => [
    "Hello? Hello... I can't hear you very well.",
    "I'm sorry, the line seems to be breaking up. Could you repeat that, please?",
    '(The call dropped; calling the number back did not connect.)',
  ],
  droppedSummary: () => "The call dropped before the patient's request could be identified, and the number could not be reached when called back.",
  unavailable: [
    ['The number you have dialled is not available. Please try again later.', 'the number was unavailable'],
    ['The number you have called is not in service.', 'the number is not in service'],
  ],
  callEnded: () => '(Call ended: the number could not be reached.)',
  unavailableSummary: (c, why) => `The patient could not be reached about ${topic(c)}: ${why}.`,
  askedAbout: (c) => `Hi, I wanted to ask about ${aService(c)}.`,
  stillBooking: (c) => `Hi ${c.first}, just checking whether you'd still like to book. Reply here whenever it suits you.`,
  stoppedReplyingSummary: (c) => `The patient asked about ${aService(c)} on WhatsApp but stopped replying before an appointment could be booked.`,
  sawMessage: (c) => `Hi ${c.first}, just checking you saw our message. Reply here whenever it suits you.`,
  noReplySummary: (c) => `The patient did not reply to the WhatsApp message about ${topic(c)}, even after a follow-up.`,

  summaries: {
    bookedReminder: (c) => `The patient confirmed their ${c.service.text} appointment on ${c.oldSlot} in reply to the WhatsApp reminder.`,
    bookedInbound: (c) => `The patient ${contact(c)} to book ${aService(c)} and was scheduled for ${c.slot}.`,
    bookedByPatient: (c) => `The patient booked ${aService(c)} for ${c.slot} ${context(c)}.`,
    bookedScheduled: (c) => `${capitalise(aService(c))} was scheduled for ${c.slot} ${context(c)}.`,
    rescheduled: (c) => `The patient rescheduled their ${c.service.text} from ${c.oldSlot} to ${c.slot}.`,
    moved: (c) => `The ${c.service.text} appointment was moved from ${c.oldSlot} to ${c.slot} at the patient's request.`,
    cancelled: (c) => `The patient cancelled their ${c.service.text} appointment on ${c.oldSlot} and chose not to rebook for now.`,
    callbackInbound: (c, questionTopic, when) => `The patient ${contact(c)} about ${questionTopic} and asked for a member of staff to call back ${when}.`,
    callbackReminder: (c, when) => `The patient asked for a call ${when} with a question before their appointment on ${c.oldSlot}.`,
    callback: (c, when) => `The patient asked to be called back ${when} about ${topic(c)}.`,
    pendingReminder: (c) => `The patient has not yet confirmed their appointment on ${c.oldSlot} and will reply once they know their availability.`,
    pendingPrice: (c, reason) => `The patient asked about the price of ${aService(c)} (${c.price}) and will decide after they ${reason}.`,
    pending: (c, reason) => `The patient is interested in ${aService(c)} but needs to ${reason} before deciding.`,
    optOut: (c) => `The patient asked not to be contacted again and was removed from ${c.channel === 'voice' ? 'call' : 'WhatsApp'} outreach.`,
  },
};
