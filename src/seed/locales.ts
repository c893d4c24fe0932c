// The countries the demo clinics are in: cities with their time zones and dialling codes, street
// names, people's names, and the national formats of phone numbers. Phone numbers use fictional
// ranges where the numbering plan has them (UK "drama" numbers, US 555).
import type { Rng } from './random.js';

export type CountryCode = 'ES' | 'GB' | 'US' | 'DE' | 'FR' | 'MX';

/** The languages the demo clinics speak (ISO 639-1, as in `clinics.language`). */
export type Language = 'en' | 'es' | 'de' | 'fr';

/** How a country writes an appointment's day and time (see time.ts formatSlot). */
export type DateStyle = 'en-GB' | 'en-US' | 'es' | 'de' | 'fr';

/** A noun as a sentence needs it: its grammatical gender picks the articles and agreements ('n' in English). */
export interface Noun {
  text: string;
  gender: 'm' | 'f' | 'n';
}

export interface City {
  name: string;
  timezone: string;
  /** Landline area code, national form without trunk prefix. */
  area: string;
  /** First digits of the postal code (or the US state). */
  postal: string;
  state?: string;
  districts: string[];
}

export interface Country {
  code: CountryCode;
  name: string;
  /** The language the clinics there write and speak to patients in. */
  language: Language;
  /** How much more (or less) patients there use WhatsApp than calls; 1 = the base mix. */
  whatsappAffinity: number;
  dateStyle: DateStyle;
  /** A base price in euros, converted into the local currency and written as the country writes prices. */
  currency: (amount: number) => string;
  emailDomain: string;
  emailLocalParts: string[];
  cities: City[];
  streets: string[];
  agentNames: string[];
  firstNames: string[];
  lastNames: string[];
  clinicNames: Record<Specialty, string[]>;
  address(rng: Rng, city: City): string;
  landline(rng: Rng, city: City): string;
  mobile(rng: Rng, city: City): string;
}

export type Specialty = 'dental' | 'physio' | 'dermatology' | 'ophthalmology' | 'family';

export const SPECIALTIES: readonly Specialty[] = ['dental', 'physio', 'dermatology', 'ophthalmology', 'family'];

export interface Service {
  /** The English name (campaign copy and transcripts of English-speaking clinics). */
  name: string;
  /** Base price in euros. */
  price: number;
  /** The name in each language, with its gender. */
  names: Record<Language, Noun>;
}

type Gender = Noun['gender'];

function service(price: number, en: string, es: [string, Gender], de: [string, Gender], fr: [string, Gender]): Service {
  return {
    name: en,
    price,
    names: { en: { text: en, gender: 'n' }, es: { text: es[0], gender: es[1] }, de: { text: de[0], gender: de[1] }, fr: { text: fr[0], gender: fr[1] } },
  };
}

/** Services a patient books, per specialty: base price in euros, English, Spanish, German and French names. */
export const SERVICES: Record<Specialty, readonly Service[]> = {
  dental: [
    service(45, 'dental check-up', ['revisión dental', 'f'], ['Kontrolluntersuchung', 'f'], ['contrôle dentaire', 'm']),
    service(60, 'dental cleaning', ['limpieza dental', 'f'], ['Zahnreinigung', 'f'], ['détartrage', 'm']),
    service(250, 'teeth whitening session', ['sesión de blanqueamiento dental', 'f'], ['Bleaching-Sitzung', 'f'], ['séance de blanchiment dentaire', 'f']),
    service(80, 'filling', ['empaste', 'm'], ['Zahnfüllung', 'f'], ['soin de carie', 'm']),
    service(50, 'orthodontic consultation', ['consulta de ortodoncia', 'f'], ['Kieferorthopädie-Beratung', 'f'], ["consultation d'orthodontie", 'f']),
    service(70, 'implant consultation', ['consulta de implantes', 'f'], ['Implantatberatung', 'f'], ['consultation implantaire', 'f']),
  ],
  physio: [
    service(50, 'physiotherapy session', ['sesión de fisioterapia', 'f'], ['Physiotherapie-Behandlung', 'f'], ['séance de kinésithérapie', 'f']),
    service(60, 'back pain assessment', ['valoración de dolor de espalda', 'f'], ['Rückenschmerz-Untersuchung', 'f'], ['bilan pour mal de dos', 'm']),
    service(55, 'sports massage', ['masaje deportivo', 'm'], ['Sportmassage', 'f'], ['massage sportif', 'm']),
    service(
      65,
      'post-surgery rehabilitation session',
      ['sesión de rehabilitación postoperatoria', 'f'],
      ['Reha-Behandlung nach einer Operation', 'f'],
      ['séance de rééducation postopératoire', 'f'],
    ),
  ],
  dermatology: [
    service(90, 'skin check', ['revisión dermatológica', 'f'], ['Hautkrebs-Screening', 'n'], ['examen de la peau', 'm']),
    service(80, 'acne consultation', ['consulta de acné', 'f'], ['Akne-Sprechstunde', 'f'], ["consultation pour l'acné", 'f']),
    service(95, 'mole assessment', ['revisión de lunares', 'f'], ['Muttermal-Kontrolle', 'f'], ['contrôle des grains de beauté', 'm']),
    service(180, 'laser treatment session', ['sesión de tratamiento láser', 'f'], ['Laserbehandlung', 'f'], ['séance de laser', 'f']),
  ],
  ophthalmology: [
    service(70, 'eye examination', ['revisión de la vista', 'f'], ['Augenuntersuchung', 'f'], ['examen de la vue', 'm']),
    service(60, 'contact lens fitting', ['adaptación de lentes de contacto', 'f'], ['Kontaktlinsenanpassung', 'f'], ['adaptation de lentilles', 'f']),
    service(85, 'glaucoma screening', ['prueba de detección de glaucoma', 'f'], ['Glaukom-Vorsorge', 'f'], ['dépistage du glaucome', 'm']),
    service(
      100,
      'laser eye surgery consultation',
      ['consulta de cirugía láser ocular', 'f'],
      ['Beratung zur Augenlaser-OP', 'f'],
      ['consultation de chirurgie réfractive', 'f'],
    ),
  ],
  family: [
    service(60, 'GP consultation', ['consulta de medicina general', 'f'], ['Hausarzt-Sprechstunde', 'f'], ['consultation de médecine générale', 'f']),
    service(120, 'annual health check', ['chequeo médico anual', 'm'], ['Gesundheits-Check-up', 'm'], ['bilan de santé annuel', 'm']),
    service(40, 'blood test', ['análisis de sangre', 'm'], ['Blutabnahme', 'f'], ['prise de sang', 'f']),
    service(25, 'flu vaccination', ['vacuna contra la gripe', 'f'], ['Grippeimpfung', 'f'], ['vaccination contre la grippe', 'f']),
    service(55, "children's check-up", ['revisión pediátrica', 'f'], ['Kinder-Vorsorgeuntersuchung', 'f'], ['consultation pédiatrique', 'f']),
  ],
};

/** Letters UK postcodes use in their last two characters. */
const UK_INWARD_LETTERS = [...'ABDEFGHJLNPQRSTUWXYZ'];

const digits = (rng: Rng, n: number): string => {
  let out = '';
  for (let i = 0; i < n; i++) out += String(rng.int(0, 9));
  return out;
};

export const COUNTRIES: Record<CountryCode, Country> = {
  ES: {
    code: 'ES',
    name: 'Spain',
    whatsappAffinity: 1.35,
    language: 'es',
    dateStyle: 'es',
    currency: (a) => `${a} €`,
    emailDomain: 'es',
    emailLocalParts: ['citas', 'recepcion', 'info', 'hola'],
    cities: [
      { name: 'Madrid', timezone: 'Europe/Madrid', area: '91', postal: '280', districts: ['Chamberí', 'Salamanca', 'Retiro'] },
      { name: 'Barcelona', timezone: 'Europe/Madrid', area: '93', postal: '080', districts: ['Eixample', 'Gràcia', 'Sants'] },
      { name: 'Valencia', timezone: 'Europe/Madrid', area: '96', postal: '460', districts: ['Ruzafa', 'El Carmen'] },
      { name: 'Sevilla', timezone: 'Europe/Madrid', area: '954', postal: '410', districts: ['Triana', 'Nervión'] },
      { name: 'Las Palmas de Gran Canaria', timezone: 'Atlantic/Canary', area: '928', postal: '350', districts: ['Triana', 'Guanarteme'] },
    ],
    streets: ['Calle de Alcalá', 'Calle Mayor', 'Avenida de la Constitución', 'Calle de Serrano', 'Paseo de Gracia', 'Calle San Vicente', 'Calle Real'],
    agentNames: ['Sofía', 'Lucía', 'Carmen'],
    firstNames: [
      'Lucía',
      'Hugo',
      'Martina',
      'Mateo',
      'Sofía',
      'Pablo',
      'María',
      'Daniel',
      'Julia',
      'Alejandro',
      'Paula',
      'Javier',
      'Carmen',
      'Diego',
      'Elena',
      'Álvaro',
      'Laura',
      'Sergio',
    ],
    lastNames: [
      'García',
      'Fernández',
      'González',
      'Rodríguez',
      'López',
      'Martínez',
      'Sánchez',
      'Pérez',
      'Gómez',
      'Martín',
      'Jiménez',
      'Ruiz',
      'Hernández',
      'Díaz',
      'Moreno',
      'Navarro',
    ],
    clinicNames: {
      dental: ['Clínica Dental Sonrisa {city}', 'Clínica Dental {district}', 'Dentalia {city}'],
      physio: ['Fisioterapia {district}', 'Centro de Fisioterapia Activa {city}'],
      dermatology: ['Centro Dermatológico {district}', 'Clínica Dermatológica {city}'],
      ophthalmology: ['Clínica Oftalmológica Visión {city}', 'Instituto Óptico {district}'],
      family: ['Centro Médico {district}', 'Policlínica {city} Salud'],
    },
    address: (r, c) => `${r.pick(COUNTRIES.ES.streets)} ${r.int(1, 180)}, ${c.postal}${digits(r, 2)} ${c.name}`,
    landline: (r, c) =>
      c.area.length === 2 ? `+34 ${c.area} ${digits(r, 3)} ${digits(r, 2)} ${digits(r, 2)}` : `+34 ${c.area} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
    mobile: (r) => `+34 ${r.chance(0.85) ? '6' : '7'}${digits(r, 2)} ${digits(r, 3)} ${digits(r, 3)}`,
  },
  GB: {
    code: 'GB',
    name: 'United Kingdom',
    whatsappAffinity: 0.9,
    language: 'en',
    dateStyle: 'en-GB',
    currency: (a) => `£${Math.round(a * 0.85)}`,
    emailDomain: 'co.uk',
    emailLocalParts: ['reception', 'appointments', 'hello', 'info'],
    cities: [
      { name: 'London', timezone: 'Europe/London', area: '20', postal: 'W1', districts: ['Marylebone', 'Islington', 'Clapham'] },
      { name: 'Manchester', timezone: 'Europe/London', area: '161', postal: 'M1', districts: ['Didsbury', 'Ancoats'] },
      { name: 'Edinburgh', timezone: 'Europe/London', area: '131', postal: 'EH3', districts: ['Stockbridge', 'Leith'] },
      { name: 'Bristol', timezone: 'Europe/London', area: '117', postal: 'BS8', districts: ['Clifton', 'Redland'] },
    ],
    streets: ['High Street', 'Harley Street', 'Church Road', 'Victoria Road', 'Station Road', 'Park Lane', 'Queen Street'],
    agentNames: ['Emma', 'Olivia', 'Grace'],
    firstNames: [
      'Oliver',
      'Amelia',
      'George',
      'Isla',
      'Harry',
      'Ava',
      'Jack',
      'Emily',
      'Charlie',
      'Sophie',
      'Thomas',
      'Poppy',
      'James',
      'Jessica',
      'William',
      'Chloe',
      'Noah',
      'Lily',
    ],
    lastNames: [
      'Smith',
      'Jones',
      'Taylor',
      'Brown',
      'Williams',
      'Wilson',
      'Johnson',
      'Davies',
      'Robinson',
      'Wright',
      'Thompson',
      'Evans',
      'Walker',
      'White',
      'Roberts',
      'Green',
    ],
    clinicNames: {
      dental: ['{district} Dental Practice', '{city} Smile Studio'],
      physio: ['{district} Physiotherapy', '{city} Sports Physio Clinic'],
      dermatology: ['{city} Skin Clinic', '{district} Dermatology'],
      ophthalmology: ['{district} Eye Centre', '{city} Vision Clinic'],
      family: ['{district} Family Practice', '{city} Health Centre'],
    },
    address: (r, c) =>
      `${r.int(1, 240)} ${r.pick(COUNTRIES.GB.streets)}, ${c.name} ${c.postal} ${r.int(1, 9)}${r.pick(UK_INWARD_LETTERS)}${r.pick(UK_INWARD_LETTERS)}`,
    // Ofcom's ranges for drama: 020 7946 0xxx, 0161/0131/0117 496 0xxx, 07700 900xxx.
    landline: (r, c) => (c.area === '20' ? `+44 20 7946 0${digits(r, 3)}` : `+44 ${c.area} 496 0${digits(r, 3)}`),
    mobile: (r) => (r.chance(0.3) ? `+44 7700 900${digits(r, 3)}` : `+44 7${r.int(4, 9)}${digits(r, 2)} ${digits(r, 6)}`),
  },
  US: {
    code: 'US',
    name: 'United States',
    whatsappAffinity: 0.4,
    language: 'en',
    dateStyle: 'en-US',
    currency: (a) => `$${Math.round(a * 1.6)}`,
    emailDomain: 'com',
    emailLocalParts: ['frontdesk', 'appointments', 'info', 'hello'],
    cities: [
      { name: 'San Francisco', state: 'CA', timezone: 'America/Los_Angeles', area: '415', postal: '941', districts: ['Mission', 'Noe Valley', 'SoMa'] },
      { name: 'New York', state: 'NY', timezone: 'America/New_York', area: '212', postal: '100', districts: ['Upper West Side', 'Chelsea', 'Tribeca'] },
      { name: 'Chicago', state: 'IL', timezone: 'America/Chicago', area: '312', postal: '606', districts: ['Lincoln Park', 'River North'] },
      { name: 'Austin', state: 'TX', timezone: 'America/Chicago', area: '512', postal: '787', districts: ['Zilker', 'Mueller'] },
      { name: 'Denver', state: 'CO', timezone: 'America/Denver', area: '303', postal: '802', districts: ['Highlands', 'Cherry Creek'] },
      { name: 'Phoenix', state: 'AZ', timezone: 'America/Phoenix', area: '602', postal: '850', districts: ['Arcadia', 'Biltmore'] },
    ],
    streets: ['Main Street', 'Market Street', 'Oak Avenue', 'Maple Drive', 'Broadway', 'Elm Street', 'Lakeview Boulevard'],
    agentNames: ['Ava', 'Mia', 'Harper'],
    firstNames: [
      'Liam',
      'Olivia',
      'Noah',
      'Emma',
      'James',
      'Charlotte',
      'Elijah',
      'Sophia',
      'Benjamin',
      'Amelia',
      'Lucas',
      'Isabella',
      'Mason',
      'Evelyn',
      'Ethan',
      'Abigail',
      'Logan',
      'Madison',
    ],
    lastNames: [
      'Smith',
      'Johnson',
      'Williams',
      'Brown',
      'Jones',
      'Miller',
      'Davis',
      'Garcia',
      'Rodriguez',
      'Wilson',
      'Anderson',
      'Thomas',
      'Moore',
      'Martin',
      'Lee',
      'Clark',
    ],
    clinicNames: {
      dental: ['{city} Family Dental', '{district} Dental Group', 'Bright Smile Dentistry {city}'],
      physio: ['{district} Physical Therapy', '{city} Spine & Sports Rehab'],
      dermatology: ['{city} Dermatology Associates', '{district} Skin Care Center'],
      ophthalmology: ['{city} Eye Associates', '{district} Vision Center'],
      family: ['{district} Family Medicine', '{city} Primary Care'],
    },
    address: (r, c) =>
      `${r.int(100, 4999)} ${r.pick(COUNTRIES.US.streets)}, Suite ${r.int(1, 9)}${r.int(0, 2)}0, ${c.name}, ${c.state} ${c.postal}${digits(r, 2)}`,
    // 555-01xx is reserved for fiction; the wider 555 exchange is what films use.
    landline: (r, c) => `+1 (${c.area}) 555-01${digits(r, 2)}`,
    mobile: (r, c) => `+1 (${r.chance(0.7) ? c.area : r.pick(['415', '212', '312', '512', '303', '602', '646', '718', '305', '206'])}) 555-${digits(r, 4)}`,
  },
  DE: {
    code: 'DE',
    name: 'Germany',
    whatsappAffinity: 0.95,
    language: 'de',
    dateStyle: 'de',
    currency: (a) => `${Math.round(a * 1.1)} €`,
    emailDomain: 'de',
    emailLocalParts: ['praxis', 'termine', 'info', 'kontakt'],
    cities: [
      { name: 'Berlin', timezone: 'Europe/Berlin', area: '30', postal: '10', districts: ['Mitte', 'Prenzlauer Berg', 'Kreuzberg'] },
      { name: 'München', timezone: 'Europe/Berlin', area: '89', postal: '80', districts: ['Schwabing', 'Maxvorstadt'] },
      { name: 'Hamburg', timezone: 'Europe/Berlin', area: '40', postal: '20', districts: ['Eppendorf', 'Altona'] },
      { name: 'Köln', timezone: 'Europe/Berlin', area: '221', postal: '50', districts: ['Ehrenfeld', 'Lindenthal'] },
    ],
    streets: ['Hauptstraße', 'Friedrichstraße', 'Bahnhofstraße', 'Schillerstraße', 'Gartenstraße', 'Lindenallee', 'Goethestraße'],
    agentNames: ['Lea', 'Hannah', 'Marie'],
    firstNames: [
      'Ben',
      'Emma',
      'Paul',
      'Mia',
      'Leon',
      'Hannah',
      'Finn',
      'Sophia',
      'Elias',
      'Lina',
      'Jonas',
      'Marie',
      'Lukas',
      'Lea',
      'Felix',
      'Clara',
      'Maximilian',
      'Anna',
    ],
    lastNames: [
      'Müller',
      'Schmidt',
      'Schneider',
      'Fischer',
      'Weber',
      'Meyer',
      'Wagner',
      'Becker',
      'Schulz',
      'Hoffmann',
      'Koch',
      'Richter',
      'Klein',
      'Wolf',
      'Neumann',
      'Braun',
    ],
    clinicNames: {
      dental: ['Zahnarztpraxis {district}', 'Zahnzentrum {city}'],
      physio: ['Physiotherapie {district}', 'Praxis für Physiotherapie {city}'],
      dermatology: ['Hautarztpraxis {district}', 'Dermatologie am {district}'],
      ophthalmology: ['Augenarztpraxis {district}', 'Augenzentrum {city}'],
      family: ['Hausarztpraxis {district}', 'Gemeinschaftspraxis {city}'],
    },
    address: (r, c) => `${r.pick(COUNTRIES.DE.streets)} ${r.int(1, 150)}, ${c.postal}${digits(r, 3)} ${c.name}`,
    landline: (r, c) => `+49 ${c.area} ${digits(r, 10 - c.area.length)}`,
    mobile: (r) => `+49 ${r.pick(['151', '152', '157', '160', '162', '170', '171', '172', '175', '176', '177', '178', '179'])}${digits(r, 1)} ${digits(r, 7)}`,
  },
  FR: {
    code: 'FR',
    name: 'France',
    whatsappAffinity: 0.85,
    language: 'fr',
    dateStyle: 'fr',
    currency: (a) => `${a} €`,
    emailDomain: 'fr',
    emailLocalParts: ['contact', 'rdv', 'accueil', 'secretariat'],
    cities: [
      { name: 'Paris', timezone: 'Europe/Paris', area: '1', postal: '750', districts: ['Le Marais', 'Batignolles', 'Montparnasse'] },
      { name: 'Lyon', timezone: 'Europe/Paris', area: '4', postal: '690', districts: ['Croix-Rousse', 'Part-Dieu'] },
      { name: 'Marseille', timezone: 'Europe/Paris', area: '4', postal: '130', districts: ['Le Panier', 'Prado'] },
      { name: 'Bordeaux', timezone: 'Europe/Paris', area: '5', postal: '330', districts: ['Chartrons', 'Saint-Michel'] },
    ],
    streets: ['Rue de Rivoli', 'Avenue Victor Hugo', 'Rue de la République', 'Boulevard Voltaire', 'Rue Nationale', 'Rue du Faubourg Saint-Antoine'],
    agentNames: ['Chloé', 'Camille', 'Léa'],
    firstNames: [
      'Gabriel',
      'Jade',
      'Léo',
      'Louise',
      'Raphaël',
      'Emma',
      'Arthur',
      'Alice',
      'Louis',
      'Chloé',
      'Jules',
      'Inès',
      'Adam',
      'Léa',
      'Hugo',
      'Manon',
      'Paul',
      'Camille',
    ],
    lastNames: [
      'Martin',
      'Bernard',
      'Dubois',
      'Thomas',
      'Robert',
      'Richard',
      'Petit',
      'Durand',
      'Leroy',
      'Moreau',
      'Simon',
      'Laurent',
      'Lefebvre',
      'Michel',
      'Garcia',
      'Fournier',
    ],
    clinicNames: {
      dental: ['Cabinet Dentaire {district}', 'Centre Dentaire {city} Lumière'],
      physio: ['Cabinet de Kinésithérapie {district}', 'Kiné {city} Santé'],
      dermatology: ['Cabinet de Dermatologie {district}', 'Centre Dermatologique {city}'],
      ophthalmology: ['Centre Ophtalmologique {district}', 'Clinique de la Vision {city}'],
      family: ['Maison de Santé {district}', 'Cabinet Médical {city}'],
    },
    address: (r, c) => `${r.int(1, 120)} ${r.pick(COUNTRIES.FR.streets)}, ${c.postal}${digits(r, 2)} ${c.name}`,
    landline: (r, c) => `+33 ${c.area} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
    mobile: (r) => `+33 ${r.chance(0.8) ? '6' : '7'} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)} ${digits(r, 2)}`,
  },
  MX: {
    code: 'MX',
    name: 'Mexico',
    whatsappAffinity: 1.6,
    language: 'es',
    dateStyle: 'es',
    // About 19 pesos to the euro, rounded to tens, with Mexico's thousands separator: "$1,140 MXN".
    currency: (a) => `$${String(Math.round((a * 19) / 10) * 10).replace(/\B(?=(\d{3})+$)/g, ',')} MXN`,
    emailDomain: 'com.mx',
    emailLocalParts: ['citas', 'contacto', 'recepcion', 'hola'],
    cities: [
      {
        name: 'Ciudad de México',
        state: 'CDMX',
        timezone: 'America/Mexico_City',
        area: '55',
        postal: '11',
        districts: ['Polanco', 'Roma Norte', 'Condesa', 'Coyoacán'],
      },
      { name: 'Guadalajara', state: 'Jal.', timezone: 'America/Mexico_City', area: '33', postal: '44', districts: ['Providencia', 'Chapalita'] },
      { name: 'Monterrey', state: 'N.L.', timezone: 'America/Monterrey', area: '81', postal: '64', districts: ['San Pedro', 'Cumbres'] },
      { name: 'Cancún', state: 'Q.R.', timezone: 'America/Cancun', area: '998', postal: '77', districts: ['Zona Hotelera', 'Centro'] },
    ],
    streets: ['Av. Presidente Masaryk', 'Av. Insurgentes Sur', 'Calle Durango', 'Av. Chapultepec', 'Calle Hidalgo', 'Av. Juárez', 'Calle Morelos'],
    agentNames: ['Valeria', 'Regina', 'Ximena'],
    firstNames: [
      'Santiago',
      'Sofía',
      'Mateo',
      'Valentina',
      'Sebastián',
      'Regina',
      'Leonardo',
      'Camila',
      'Emiliano',
      'Ximena',
      'Diego',
      'Renata',
      'Miguel',
      'Fernanda',
      'Daniel',
      'Mariana',
      'José',
      'Andrea',
    ],
    lastNames: [
      'Hernández',
      'García',
      'Martínez',
      'López',
      'González',
      'Pérez',
      'Rodríguez',
      'Sánchez',
      'Ramírez',
      'Cruz',
      'Flores',
      'Gómez',
      'Morales',
      'Vázquez',
      'Reyes',
      'Jiménez',
    ],
    clinicNames: {
      dental: ['Clínica Dental {district}', 'Dentalcare {city}'],
      physio: ['Fisioterapia Integral {district}', 'Centro de Rehabilitación {city}'],
      dermatology: ['Dermatología {district}', 'Clínica de la Piel {city}'],
      ophthalmology: ['Centro Oftalmológico {district}', 'Visión Clara {city}'],
      family: ['Consultorio Médico {district}', 'Clínica Familiar {city}'],
    },
    address: (r, c) => `${r.pick(COUNTRIES.MX.streets)} ${r.int(10, 999)}, ${r.pick(c.districts)}, ${c.postal}${digits(r, 3)} ${c.name}, ${c.state}`,
    landline: (r, c) => (c.area.length === 2 ? `+52 ${c.area} ${digits(r, 4)} ${digits(r, 4)}` : `+52 ${c.area} ${digits(r, 3)} ${digits(r, 4)}`),
    mobile: (r, c) => (c.area.length === 2 ? `+52 ${c.area} ${digits(r, 4)} ${digits(r, 4)}` : `+52 ${c.area} ${digits(r, 3)} ${digits(r, 4)}`),
  },
};

/** The women among the first names above (the transcripts' agreements: "la paciente", "intéressée", "die Patientin"). */
export const FEMALE_FIRST_NAMES: ReadonlySet<string> = new Set(
  [
    'Lucía Martina Sofía María Julia Paula Carmen Elena Laura', // ES
    'Amelia Isla Ava Emily Sophie Poppy Jessica Chloe Lily', // GB
    'Olivia Emma Charlotte Sophia Amelia Isabella Evelyn Abigail Madison', // US
    'Emma Mia Hannah Sophia Lina Marie Lea Clara Anna', // DE
    'Jade Louise Emma Alice Chloé Inès Léa Manon Camille', // FR
    'Sofía Valentina Regina Camila Ximena Renata Fernanda Mariana Andrea', // MX
  ].flatMap((names) => names.split(' ')),
);

/** Countries of clinics 0, 1, 2, ...: the default eight are two Spanish, two US, and one of each other. */
export const CLINIC_COUNTRY_ORDER: readonly CountryCode[] = ['ES', 'GB', 'US', 'DE', 'FR', 'MX', 'ES', 'US'];

export const COUNTRY_CODES = Object.keys(COUNTRIES) as CountryCode[];
