// The phrasebook of each language the demo clinics speak.

import type { Language } from '../locales.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { Phrasebook } from './phrasebook.js';

export const PHRASEBOOKS: Record<Language, Phrasebook> = { en, es, de, fr };
