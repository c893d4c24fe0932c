// What a phrasebook is: a conversation's facts (who, what, when) and every line a conversation can
// say, in one language (phrasebooks/*.ts). The conversations (../conversations.ts) decide which
// lines are said; these types are shared by both, so neither imports the other's module for them.
import type { CampaignTypeValue, ChannelValue, InteractionTypeValue, OutcomeValue } from '../../domain/values.js';
import type { Language, Noun } from '../locales.js';

export interface TranscriptEntry {
  role: 'assistant' | 'user';
  content: string;
}

export interface Conversation {
  language: Language;
  channel: ChannelValue;
  type: InteractionTypeValue;
  outcome: OutcomeValue;
  /** Campaign behind a campaign-driven interaction, else null. */
  campaignType: CampaignTypeValue | null;
  clinic: string;
  clinicPhone: string;
  agent: string;
  first: string;
  /** The patient is a woman (the agreements of Spanish, French and German: "la paciente", "intéressée", "die Patientin"). */
  female: boolean;
  /** The service, in the clinic's language. */
  service: Noun;
  price: string;
  /** The slot booked or moved to, and the other slot offered (see time.ts formatSlot). */
  slot: string;
  altSlot: string;
  /** An existing appointment (moved, cancelled, reminded of). */
  oldSlot: string;
  /** The appointment missed (no-show recovery). */
  missedSlot: string;
  /** Ringing time (no answer). */
  seconds: number;
}

type Line = (c: Conversation) => string;
type Lines = (c: Conversation) => readonly string[];

/**
 * Everything a conversation says, in one language. Lists the conversation picks from have the same
 * length in every language (the draws must not depend on the language), which the tests check.
 */
export interface Phrasebook {
  /** When a patient would like to be called back ("tomorrow morning"). */
  when: readonly string[];
  /** Why a patient needs time: as they say it ("check my work schedule"), as the summary reports it ("check their work schedule"). */
  reasons: ReadonlyArray<readonly [said: string, reported: string]>;
  /** A question for the staff: as the patient asks it, and what it is about as the summary names it. */
  questions: ReadonlyArray<readonly [asked: string, topic: string]>;

  /** An outbound call that rang out: the call log line and the summary. */
  noAnswer: Line;
  noAnswerSummary: Line;
  /** What the caller hears from the voicemail (one of them), the message left, and the summary. */
  voicemailGreetings: Lines;
  voicemailMessage: Line;
  voicemailSummary: Line;

  /** The WhatsApp appointment reminder (the whole first message). */
  reminder: Line;
  /** The first WhatsApp message of an outbound conversation. */
  whatsappOpening: Line;
  /** An outbound call: checking who answered, their answer (one of them), and the assistant's introduction. */
  callCheck: Line;
  callCheckAnswers: Lines;
  callIntro: Line;
  /** The assistant answering an inbound call. */
  inboundCallGreeting: Line;
  /** Put before the assistant's first answer to an inbound WhatsApp message (no punctuation after it). */
  messageThanks: Line;

  /** What a patient who calls or writes wants. */
  changeRequest: Line;
  cancelRequest: Line;
  priceRequest: Line;
  stopMessagesRequest: Line;
  stopCallsRequest: Line;
  bookRequests: Lines;

  /** A patient's answer to the clinic's outreach, by outcome (`Reminder` ones answer the appointment reminder). */
  confirmReplies: Lines;
  acceptReplies: Lines;
  moveReminderReply: Line;
  moveReply: Line;
  cancelReminderReply: Line;
  cancelReply: Line;
  callbackReminderReply: Line;
  callbackReply: (c: Conversation, when: string) => string;
  pendingReminderReply: Line;
  pendingReply: (c: Conversation, reason: string) => string;
  stopMessagesReply: Line;
  stopCallsReplies: Lines;

  /** From the clinic's first answer to the end of the conversation. */
  confirmation: Line;
  reminderConfirmed: Line;
  offerSlots: Line;
  slotChoices: Lines;
  booked: (c: Conversation, confirmation: string) => string;
  bookedThanks: Lines;
  moveOffer: Line;
  moveChoice: Line;
  moved: (c: Conversation, confirmation: string) => string;
  movedThanks: Line;
  cancelOffer: Line;
  cancelDeclines: Lines;
  cancelled: Line;
  callbackOffer: Line;
  callbackWhen: (c: Conversation, when: string) => string;
  callbackArranged: (c: Conversation, when: string) => string;
  callbackNoted: (c: Conversation, when: string) => string;
  callbackBye: Line;
  pendingReminder: Line;
  priceAnswer: Line;
  needTo: (c: Conversation, reason: string) => string;
  whenReady: Line;
  sendTimes: Line;
  pendingAcks: Lines;
  unsubscribed: Line;
  removed: Line;

  /** An inbound call that dropped: the patient's, the assistant's and the log's lines after the greeting, and the summary. */
  dropped: Lines;
  droppedSummary: Line;
  /** The network's announcement for a number that cannot be reached, with the reason as the summary gives it. */
  unavailable: ReadonlyArray<readonly [announcement: string, why: string]>;
  callEnded: Line;
  unavailableSummary: (c: Conversation, why: string) => string;
  /** An inbound WhatsApp conversation the patient left: their question, the assistant's nudge, the summary. */
  askedAbout: Line;
  stillBooking: Line;
  stoppedReplyingSummary: Line;
  /** An outbound WhatsApp message nobody answered: the nudge and the summary. */
  sawMessage: Line;
  noReplySummary: Line;

  /** One-sentence summaries, by outcome. */
  summaries: {
    bookedReminder: Line;
    bookedInbound: Line;
    /** Two ways to report an outbound booking (one of them is drawn). */
    bookedByPatient: Line;
    bookedScheduled: Line;
    /** Two ways to report a change (one of them is drawn). */
    rescheduled: Line;
    moved: Line;
    cancelled: Line;
    callbackInbound: (c: Conversation, topic: string, when: string) => string;
    callbackReminder: (c: Conversation, when: string) => string;
    callback: (c: Conversation, when: string) => string;
    pendingReminder: Line;
    pendingPrice: (c: Conversation, reason: string) => string;
    pending: (c: Conversation, reason: string) => string;
    optOut: Line;
  };
}
