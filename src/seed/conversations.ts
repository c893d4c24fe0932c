// Transcripts and AI-style summaries that agree with an interaction's channel, type, campaign and
// outcome, in the clinic's language. Conversations that reached a person have turns from both
// sides; a voicemail holds the greeting heard and the message left; an unanswered call or an
// ignored message has only the assistant's side.
//
// The shape of a conversation (which turns, in which order, and every random draw) is decided here
// once for all languages; the words come from the language's phrasebook (phrasebooks/*.ts). So a
// clinic's language changes its texts and nothing else: every language makes the same draws and
// the same number of turns.
import { PHRASEBOOKS } from './phrasebooks/index.js';
import type { Conversation, Phrasebook, TranscriptEntry } from './phrasebooks/phrasebook.js';
import type { Rng } from './random.js';

export type { Conversation, Phrasebook, TranscriptEntry } from './phrasebooks/phrasebook.js';

const a = (content: string): TranscriptEntry => ({ role: 'assistant', content });
const u = (content: string): TranscriptEntry => ({ role: 'user', content });

/** The clinic's opening, up to the point where the patient states what they want. */
function opening(p: Phrasebook, c: Conversation, r: Rng): TranscriptEntry[] {
  if (c.type === 'APPOINTMENT_REMINDER') return [a(p.reminder(c))];
  if (c.channel === 'whatsapp') return [a(p.whatsappOpening(c))];
  return [a(p.callCheck(c)), u(r.pick(p.callCheckAnswers(c))), a(p.callIntro(c))];
}

function inboundRequest(p: Phrasebook, c: Conversation, r: Rng, question: string): string {
  switch (c.outcome) {
    case 'APPOINTMENT_MODIFIED':
      return p.changeRequest(c);
    case 'APPOINTMENT_CANCELLED':
      return p.cancelRequest(c);
    case 'CALLBACK_REQUESTED':
      return question;
    case 'DECISION_PENDING':
      return p.priceRequest(c);
    case 'OPT_OUT':
      return c.channel === 'whatsapp' ? p.stopMessagesRequest(c) : p.stopCallsRequest(c);
    default:
      return r.pick(p.bookRequests(c));
  }
}

function outboundReply(p: Phrasebook, c: Conversation, r: Rng, when: string, reason: string): string {
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      return reminding ? r.pick(p.confirmReplies(c)) : r.pick(p.acceptReplies(c));
    case 'APPOINTMENT_MODIFIED':
      return reminding ? p.moveReminderReply(c) : p.moveReply(c);
    case 'APPOINTMENT_CANCELLED':
      return reminding ? p.cancelReminderReply(c) : p.cancelReply(c);
    case 'CALLBACK_REQUESTED':
      return reminding ? p.callbackReminderReply(c) : p.callbackReply(c, when);
    case 'DECISION_PENDING':
      return reminding ? p.pendingReminderReply(c) : p.pendingReply(c, reason);
    default:
      return c.channel === 'whatsapp' ? p.stopMessagesReply(c) : r.pick(p.stopCallsReplies(c));
  }
}

/** From the clinic's first answer to the patient's request until the end of the conversation. */
function resolution(p: Phrasebook, c: Conversation, r: Rng, inbound: boolean, when: string, reason: string): TranscriptEntry[] {
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      if (reminding) return [a(p.reminderConfirmed(c))];
      return [a(p.offerSlots(c)), u(r.pick(p.slotChoices(c))), a(p.booked(c, p.confirmation(c))), u(r.pick(p.bookedThanks(c)))];
    case 'APPOINTMENT_MODIFIED':
      return [a(p.moveOffer(c)), u(p.moveChoice(c)), a(p.moved(c, p.confirmation(c))), u(p.movedThanks(c))];
    case 'APPOINTMENT_CANCELLED':
      return [a(p.cancelOffer(c)), u(r.pick(p.cancelDeclines(c))), a(p.cancelled(c))];
    case 'CALLBACK_REQUESTED':
      if (inbound || reminding) return [a(p.callbackOffer(c)), u(p.callbackWhen(c, when)), a(p.callbackArranged(c, when))];
      return [a(p.callbackNoted(c, when)), u(p.callbackBye(c))];
    case 'DECISION_PENDING':
      if (reminding) return [a(p.pendingReminder(c))];
      if (inbound) return [a(p.priceAnswer(c)), u(p.needTo(c, reason)), a(p.whenReady(c))];
      return [a(p.sendTimes(c)), u(r.pick(p.pendingAcks(c)))];
    default:
      return c.channel === 'whatsapp' ? [a(p.unsubscribed(c))] : [a(p.removed(c))];
  }
}

export interface ConversationText {
  transcript: TranscriptEntry[];
  summary: string;
}

export function converse(c: Conversation, r: Rng): ConversationText {
  const p = PHRASEBOOKS[c.language];
  const inbound = c.type === 'INBOUND';
  const when = r.pick(p.when);
  const [reason, theirReason] = r.pick(p.reasons);
  const [question, questionTopic] = r.pick(p.questions);
  const voice = c.channel === 'voice';

  switch (c.outcome) {
    case 'NO_ANSWER':
      return { transcript: [a(p.noAnswer(c))], summary: p.noAnswerSummary(c) };
    case 'VOICEMAIL_REACHED':
      return { transcript: [u(r.pick(p.voicemailGreetings(c))), a(p.voicemailMessage(c))], summary: p.voicemailSummary(c) };
    case 'UNREACHABLE':
      return unreachable(p, c, r, voice, inbound);
    default:
      break;
  }

  let transcript: TranscriptEntry[];
  if (inbound) {
    const request = u(inboundRequest(p, c, r, question));
    const rest = resolution(p, c, r, true, when, reason);
    if (voice) transcript = [a(p.inboundCallGreeting(c)), request, ...rest];
    else {
      const [first, ...others] = rest;
      const greeting = c.outcome === 'OPT_OUT' ? '' : `${p.messageThanks(c)} `;
      transcript = [request, a(`${greeting}${first!.content}`), ...others];
    }
  } else {
    transcript = [...opening(p, c, r), u(outboundReply(p, c, r, when, reason)), ...resolution(p, c, r, false, when, reason)];
  }
  return { transcript, summary: summary(p, c, r, inbound, when, theirReason, questionTopic) };
}

function unreachable(p: Phrasebook, c: Conversation, r: Rng, voice: boolean, inbound: boolean): ConversationText {
  if (voice && inbound) {
    const [patient, assistant, log] = p.dropped(c);
    return { transcript: [a(p.inboundCallGreeting(c)), u(patient!), a(assistant!), a(log!)], summary: p.droppedSummary(c) };
  }
  if (voice) {
    const [announcement, why] = r.pick(p.unavailable);
    return { transcript: [u(announcement), a(p.callEnded(c))], summary: p.unavailableSummary(c, why) };
  }
  if (inbound)
    return {
      transcript: [u(p.askedAbout(c)), a(`${p.messageThanks(c)} ${p.offerSlots(c)}`), a(p.stillBooking(c))],
      summary: p.stoppedReplyingSummary(c),
    };
  return { transcript: [...opening(p, c, r), a(p.sawMessage(c))], summary: p.noReplySummary(c) };
}

function summary(p: Phrasebook, c: Conversation, r: Rng, inbound: boolean, when: string, reason: string, questionTopic: string): string {
  const s = p.summaries;
  const reminding = c.type === 'APPOINTMENT_REMINDER';
  switch (c.outcome) {
    case 'APPOINTMENT_BOOKED':
      if (reminding) return s.bookedReminder(c);
      if (inbound) return s.bookedInbound(c);
      return r.chance(0.5) ? s.bookedByPatient(c) : s.bookedScheduled(c);
    case 'APPOINTMENT_MODIFIED':
      return r.chance(0.5) ? s.rescheduled(c) : s.moved(c);
    case 'APPOINTMENT_CANCELLED':
      return s.cancelled(c);
    case 'CALLBACK_REQUESTED':
      if (inbound) return s.callbackInbound(c, questionTopic, when);
      if (reminding) return s.callbackReminder(c, when);
      return s.callback(c, when);
    case 'DECISION_PENDING':
      if (reminding) return s.pendingReminder(c);
      if (inbound) return s.pendingPrice(c, reason);
      return s.pending(c, reason);
    default:
      return s.optOut(c);
  }
}
