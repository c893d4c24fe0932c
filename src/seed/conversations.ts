// Transcripts and AI-style summaries that agree with an interaction's channel, type, campaign and
// outcome. Conversations that reached a person have turns from both sides; a voicemail holds the
// greeting heard and the message left; an unanswered call or an ignored message has only the
// assistant's side.
import type { CampaignTypeValue, ChannelValue, InteractionTypeValue, OutcomeValue } from '../domain/values.js';
import type { Rng } from './random.js';

export interface TranscriptEntry {
  role: 'assistant' | 'user';
  content: string;
}

export interface Conversation {
  channel: ChannelValue;
  type: InteractionTypeValue;
  outcome: OutcomeValue;
  /** Campaign behind a campaign-driven interaction, else null. */
  campaignType: CampaignTypeValue | null;
  clinic: string;
  clinicPhone: string;
  agent: string;
  first: string;
  service: string;
  /** The service with its indefinite article ("an eye examination"). */
  aService: string;
  price: string;
  /** The slot booked or moved to, and the other slot offered. */
  slot: string;
  altSlot: string;
  /** An existing appointment (moved, cancelled, reminded of). */
  oldSlot: string;
  /** The appointment missed (no-show recovery). */
  missedSlot: string;
  /** Ringing time (no answer). */
  seconds: number;
}

const WHEN = ['tomorrow morning', 'this afternoon', 'after 5 pm', 'on Monday morning', 'later today', 'tomorrow after lunch'];
/** Why a patient needs time: as they say it, and as the summary reports it. */
const REASONS = [
  ['check my work schedule', 'check their work schedule'],
  ['talk to my partner', 'talk to their partner'],
  ['check what my insurance covers', 'check what their insurance covers'],
  ['think about the cost', 'think about the cost'],
  ['look at my calendar', 'look at their calendar'],
] as const;
const QUESTIONS = [
  ['I have a question about my last invoice.', 'a question about their last invoice'],
  ["I'd like to talk to someone about my treatment plan.", 'their treatment plan'],
  ['I have a question about my insurance coverage.', 'their insurance coverage'],
  ['Can I get a copy of my test results?', 'a copy of their test results'],
] as const;

const a = (content: string): TranscriptEntry => ({ role: 'assistant', content });
const u = (content: string): TranscriptEntry => ({ role: 'user', content });

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** What the clinic was getting in touch about, as a noun phrase ("their missed dental check-up"). */
function topic(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND' || c.type === 'CAMPAIGN_CALLBACK') return `their ${c.service} enquiry`;
  if (c.type === 'APPOINTMENT_REMINDER') return `their appointment on ${c.oldSlot}`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `their missed ${c.service} appointment`;
    case 'reactivation':
      return 'booking a return visit';
    case 'follow_up':
      return 'a follow-up after their recent visit';
    case 'recall':
      return `their periodic ${c.service}`;
    case 'custom':
      return `this month's ${c.service} offer`;
    case 'appointment_reminder':
      return `their appointment on ${c.oldSlot}`;
    default:
      return `${c.aService}`;
  }
}

function pitch(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return `You filled in our online form asking about ${c.aService}. Is now a good time to find you an appointment?`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `I'm calling you back, as you asked, about your ${c.service} enquiry.`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return `We missed you at your ${c.service} appointment on ${c.missedSlot}. Would you like to book a new time?`;
    case 'reactivation':
      return `It's been a while since your last visit and we'd love to see you again. Would you like to book ${c.aService}?`;
    case 'follow_up':
      return "We're following up after your recent visit. How are you feeling? We can also schedule your follow-up appointment.";
    case 'recall':
      return `You're due for your periodic ${c.service}. Shall we find a time that suits you?`;
    case 'custom':
      return `This month we're offering ${c.aService} for ${c.price}. Would you like to book one?`;
    default:
      return `We're getting in touch about your appointment on ${c.oldSlot}.`;
  }
}

function reminder(c: Conversation): string {
  return `Hi ${c.first}, this is a reminder of your ${c.service} at ${c.clinic} on ${c.oldSlot}. Please reply YES to confirm, or let us know if you need to reschedule or cancel.`;
}

/** The clinic's opening, up to the point where the patient states what they want. */
function opening(c: Conversation, r: Rng): TranscriptEntry[] {
  if (c.type === 'APPOINTMENT_REMINDER') return [a(reminder(c))];
  if (c.channel === 'whatsapp') return [a(`Hi ${c.first}! This is ${c.agent}, the virtual assistant of ${c.clinic}. ${pitch(c)}`)];
  return [
    a(`Hello, am I speaking with ${c.first}?`),
    u(r.pick(['Yes, speaking.', 'Yes, who is this?', "Hi, yes, that's me."])),
    a(`Hi ${c.first}, this is ${c.agent}, the virtual assistant of ${c.clinic}. ${pitch(c)}`),
  ];
}

function inboundRequest(c: Conversation, r: Rng, question: string): string {
  switch (c.outcome) {
    case 'APPOINTMENT_MODIFIED':
      return `Hi, I need to change my appointment on ${c.oldSlot}.`;
    case 'APPOINTMENT_CANCELLED':
      return `Hello, I'm afraid I have to cancel my appointment on ${c.oldSlot}.`;
    case 'CALLBACK_REQUESTED':
      return question;
    case 'DECISION_PENDING':
      return `Hi, how much does ${c.aService} cost?`;
    case 'OPT_OUT':
      return c.channel === 'whatsapp' ? 'Please stop sending me these messages.' : 'Please stop calling me about appointments, I get too many calls.';
    default:
      return r.pick([`Hi, I'd like to book ${c.aService}.`, `Hello, do you have any availability for ${c.aService} next week?`]);
  }
}

function outboundReply(c: Conversation, r: Rng, when: string, reason: string): string {
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      return reminding
        ? r.pick(['YES', 'Yes, confirmed. See you then!', 'Yes, I will be there, thanks.'])
        : r.pick(['Yes, that would be great.', "Sure, let's book it.", "Yes please, I've been meaning to get in touch."]);
    case 'APPOINTMENT_MODIFIED':
      return reminding
        ? "I can't make it that day. Could we move it?"
        : `Actually, I already have an appointment on ${c.oldSlot} - could we move that one instead?`;
    case 'APPOINTMENT_CANCELLED':
      return reminding ? 'I need to cancel it, sorry.' : `Actually, I'd like to cancel the appointment I have on ${c.oldSlot}.`;
    case 'CALLBACK_REQUESTED':
      return reminding ? 'Could someone call me? I have a question before the appointment.' : `I can't talk right now. Could someone call me back ${when}?`;
    case 'DECISION_PENDING':
      return reminding ? "I'm not sure I can make it yet, I'll confirm tomorrow." : `I'm not sure yet, I need to ${reason} first.`;
    default:
      return c.channel === 'whatsapp' ? 'STOP' : r.pick(['Please stop contacting me.', "I'm not interested. Please remove my number from your list."]);
  }
}

/** From the clinic's first answer to the patient's request until the end of the conversation. */
function resolution(c: Conversation, r: Rng, inbound: boolean, when: string, reason: string): TranscriptEntry[] {
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  const confirmation = c.channel === 'whatsapp' ? "You'll receive a confirmation here shortly." : "You'll receive a confirmation by WhatsApp.";
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      if (reminding) return [a(`Thank you, ${c.first}! Your appointment on ${c.oldSlot} is confirmed. See you then.`)];
      return [
        a(`I have availability on ${c.altSlot} or ${c.slot}. Which would suit you better?`),
        u(r.pick([`${c.slot} works for me.`, 'The second one, please.'])),
        a(`Perfect, your ${c.service} is booked for ${c.slot}. ${confirmation}`),
        u(r.pick(['Great, thank you!', 'Thanks, see you then.'])),
      ];
    case 'APPOINTMENT_MODIFIED':
      return [
        a(`No problem. I can move it to ${c.altSlot} or ${c.slot}.`),
        u(`${c.slot}, please.`),
        a(`Done - your appointment has been moved from ${c.oldSlot} to ${c.slot}. ${confirmation}`),
        u('Thank you.'),
      ];
    case 'APPOINTMENT_CANCELLED':
      return [
        a('I understand. Would you like to reschedule it for another day instead?'),
        u(r.pick(['No, not for now, thanks.', "No thanks, I'll get in touch when I can."])),
        a(`Understood. I've cancelled your appointment on ${c.oldSlot}. You can contact us whenever you'd like to book again.`),
      ];
    case 'CALLBACK_REQUESTED':
      if (inbound || reminding)
        return [
          a("I'm not able to help with that myself, but I can ask a member of our team to call you back. When would suit you best?"),
          u(`${capitalise(when)} would be great.`),
          a(`Done. Someone from ${c.clinic} will call you back ${when}.`),
        ];
      return [a(`Of course. I've noted that a member of our team will call you back ${when}.`), u('Thanks, bye.')];
    case 'DECISION_PENDING':
      if (reminding) return [a(`No problem, just reply here when you know. We'll keep your appointment on ${c.oldSlot} for now.`)];
      if (inbound)
        return [
          a(`${capitalise(c.aService)} costs ${c.price}. Would you like me to book one for you?`),
          u(`I need to ${reason} first.`),
          a(
            `Of course. ${c.channel === 'whatsapp' ? 'Just reply here' : 'Call us or send us a WhatsApp message'} whenever you're ready and I'll find you a time.`,
          ),
        ];
      return [
        a(`No problem at all. I'll send you our available times by ${c.channel === 'whatsapp' ? 'message' : 'WhatsApp'} so you can decide when you're ready.`),
        u(r.pick(["Okay, I'll let you know.", 'Sounds good, thanks.'])),
      ];
    default:
      return c.channel === 'whatsapp'
        ? [a(`You've been unsubscribed and won't receive further messages from ${c.clinic}. Reply START if you change your mind.`)]
        : [a("I'm sorry for the inconvenience. I've removed your number from our call and message lists, and you won't be contacted again.")];
  }
}

function voicemailReason(c: Conversation): string {
  if (c.type === 'FORM_OUTBOUND') return `We're calling about the form you filled in about ${c.aService}`;
  if (c.type === 'CAMPAIGN_CALLBACK') return `We're returning your call about your ${c.service} enquiry`;
  switch (c.campaignType) {
    case 'no_show_recovery':
      return 'We missed you at your last appointment and would be happy to help you rebook';
    case 'reactivation':
      return "It's been a while since your last visit and we'd love to see you again";
    case 'follow_up':
      return "We're calling to check how you're feeling after your visit";
    case 'recall':
      return `You're due for your periodic ${c.service}`;
    case 'custom':
      return `We have a special offer on the ${c.service} this month`;
    default:
      return `We're calling about your appointment on ${c.oldSlot}`;
  }
}

export interface ConversationText {
  transcript: TranscriptEntry[];
  summary: string;
}

export function converse(c: Conversation, r: Rng): ConversationText {
  const inbound = c.type === 'INBOUND';
  const when = r.pick(WHEN);
  const [reason, theirReason] = r.pick(REASONS);
  const [question, questionTopic] = r.pick(QUESTIONS);
  const voice = c.channel === 'voice';

  switch (c.outcome) {
    case 'NO_ANSWER':
      return {
        transcript: [a(`(No answer after ${c.seconds} seconds of ringing; no voicemail detected.)`)],
        summary: `The call about ${topic(c)} went unanswered after ${c.seconds} seconds and no voicemail was left.`,
      };
    case 'VOICEMAIL_REACHED':
      return {
        transcript: [
          u(
            r.pick([
              `Hi, you've reached ${c.first}. I can't take your call right now, please leave a message after the tone.`,
              'The person you are calling is not available. Please leave a message after the tone.',
            ]),
          ),
          a(
            `Hello ${c.first}, this is ${c.agent} from ${c.clinic}. ${voicemailReason(c)}. Please call us back on ${c.clinicPhone} or reply to our WhatsApp message. Thank you!`,
          ),
        ],
        summary: `The call reached voicemail; a message about ${topic(c)} was left asking the patient to call back.`,
      };
    case 'UNREACHABLE':
      return unreachable(c, r, voice, inbound);
    default:
      break;
  }

  let transcript: TranscriptEntry[];
  if (inbound) {
    const request = u(inboundRequest(c, r, question));
    const rest = resolution(c, r, true, when, reason);
    if (voice) transcript = [a(`Thank you for calling ${c.clinic}. This is ${c.agent}, the virtual assistant. How can I help you today?`), request, ...rest];
    else {
      const [first, ...others] = rest;
      const greeting = c.outcome === 'OPT_OUT' ? '' : `Hi ${c.first}, thanks for your message! `;
      transcript = [request, a(`${greeting}${first!.content}`), ...others];
    }
  } else {
    transcript = [...opening(c, r), u(outboundReply(c, r, when, reason)), ...resolution(c, r, false, when, reason)];
  }
  return { transcript, summary: summary(c, r, inbound, when, theirReason, questionTopic) };
}

function unreachable(c: Conversation, r: Rng, voice: boolean, inbound: boolean): ConversationText {
  if (voice && inbound)
    return {
      transcript: [
        a(`Thank you for calling ${c.clinic}. This is ${c.agent}, the virtual assistant. How can I help you today?`),
        u("Hello? Hello... I can't hear you very well."),
        a("I'm sorry, the line seems to be breaking up. Could you repeat that, please?"),
        a('(The call dropped; calling the number back did not connect.)'),
      ],
      summary: "The call dropped before the patient's request could be identified, and the number could not be reached when called back.",
    };
  if (voice) {
    const [announcement, why] = r.pick([
      ['The number you have dialled is not available. Please try again later.', 'the number was unavailable'],
      ['The number you have called is not in service.', 'the number is not in service'],
    ] as const);
    return {
      transcript: [u(announcement), a('(Call ended: the number could not be reached.)')],
      summary: `The patient could not be reached about ${topic(c)}: ${why}.`,
    };
  }
  if (inbound)
    return {
      transcript: [
        u(`Hi, I wanted to ask about ${c.aService}.`),
        a(`Hi ${c.first}, thanks for your message! I have availability on ${c.altSlot} or ${c.slot}. Which would suit you better?`),
        a(`Hi ${c.first}, just checking whether you'd still like to book. Reply here whenever it suits you.`),
      ],
      summary: `The patient asked about ${c.aService} on WhatsApp but stopped replying before an appointment could be booked.`,
    };
  return {
    transcript: [...opening(c, r), a(`Hi ${c.first}, just checking you saw our message. Reply here whenever it suits you.`)],
    summary: `The patient did not reply to the WhatsApp message about ${topic(c)}, even after a follow-up.`,
  };
}

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

function summary(c: Conversation, r: Rng, inbound: boolean, when: string, reason: string, questionTopic: string): string {
  const contact = c.channel === 'voice' ? 'called' : 'messaged on WhatsApp';
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      if (reminding) return `The patient confirmed their ${c.service} appointment on ${c.oldSlot} in reply to the WhatsApp reminder.`;
      if (inbound) return `The patient ${contact} to book ${c.aService} and was scheduled for ${c.slot}.`;
      return r.chance(0.5)
        ? `The patient booked ${c.aService} for ${c.slot} ${context(c)}.`
        : `${capitalise(c.aService)} was scheduled for ${c.slot} ${context(c)}.`;
    case 'APPOINTMENT_MODIFIED':
      return r.chance(0.5)
        ? `The patient rescheduled their ${c.service} from ${c.oldSlot} to ${c.slot}.`
        : `The ${c.service} appointment was moved from ${c.oldSlot} to ${c.slot} at the patient's request.`;
    case 'APPOINTMENT_CANCELLED':
      return `The patient cancelled their ${c.service} appointment on ${c.oldSlot} and chose not to rebook for now.`;
    case 'CALLBACK_REQUESTED':
      if (inbound) return `The patient ${contact} about ${questionTopic} and asked for a member of staff to call back ${when}.`;
      if (reminding) return `The patient asked for a call ${when} with a question before their appointment on ${c.oldSlot}.`;
      return `The patient asked to be called back ${when} about ${topic(c)}.`;
    case 'DECISION_PENDING':
      if (reminding) return `The patient has not yet confirmed their appointment on ${c.oldSlot} and will reply once they know their availability.`;
      if (inbound) return `The patient asked about the price of ${c.aService} (${c.price}) and will decide after they ${reason}.`;
      return `The patient is interested in ${c.aService} but needs to ${reason} before deciding.`;
    default:
      return `The patient asked not to be contacted again and was removed from ${c.channel === 'voice' ? 'call' : 'WhatsApp'} outreach.`;
  }
}
