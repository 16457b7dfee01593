/**
 * The words demo titles are made of. Every section has its own actors, verbs,
 * topics and contexts, so titles of one section share words with each other
 * and hardly any with other sections: that is what makes the recommender's
 * content similarity (and the dashboard's `title like ...` filters) meaningful.
 */

export const SECTIONS = [
  'Politics',
  'Economy',
  'Sports',
  'Technology',
  'Culture',
  'Science',
  'Health',
  'World',
] as const;
export type Section = (typeof SECTIONS)[number];

export interface SectionVocabulary {
  /** Grammatical subjects; each section's verbs agree with its actors. */
  actors: readonly string[];
  verbs: readonly string[];
  /** Story topics, drawn Zipf-like so that a few stories dominate a section. */
  topics: readonly string[];
  contexts: readonly string[];
  /** Sections an article of this one is most often also filed under. */
  related: readonly Section[];
}

export const VOCABULARY: Readonly<Record<Section, SectionVocabulary>> = {
  Politics: {
    actors: ['Senate', 'Parliament', 'Governor', 'Prime Minister', 'Opposition', 'Cabinet', 'Mayor', 'Speaker'],
    verbs: ['backs', 'rejects', 'delays', 'unveils', 'debates', 'blocks', 'revives', 'fast-tracks'],
    topics: [
      'budget vote',
      'election reform',
      'coalition talks',
      'tax overhaul',
      'pension bill',
      'border policy',
      'campaign finance rules',
      'cabinet reshuffle',
      'housing bill',
      'voting rights',
    ],
    contexts: ['ahead of final vote', 'after marathon session', 'as polls tighten', 'amid coalition rift', 'before summer recess'],
    related: ['Economy', 'World'],
  },
  Economy: {
    actors: ['Investors', 'Retailers', 'Exporters', 'Economists', 'Unions', 'Regulators', 'Lenders', 'Manufacturers'],
    verbs: ['brace for', 'cheer', 'shrug off', 'weigh', 'warn of', 'bet on', 'rally on', 'question'],
    topics: [
      'interest rate cut',
      'inflation data',
      'jobs report',
      'trade tariffs',
      'housing market',
      'oil prices',
      'consumer spending',
      'bond yields',
      'wage growth',
      'bank earnings',
    ],
    contexts: ['as markets wobble', 'after strong quarter', 'amid recession fears', 'ahead of rate decision', 'as inflation cools'],
    related: ['Politics', 'Technology'],
  },
  Sports: {
    actors: ['United', 'Rovers', 'City', 'Athletic', 'Wanderers', 'Rangers', 'Harbour FC', 'Olympique'],
    verbs: ['wins', 'clinches', 'eyes', 'survives', 'dominates', 'reaches', 'targets', 'salvages'],
    topics: [
      'cup final',
      'title race',
      'transfer window',
      'derby',
      'playoff spot',
      'season opener',
      'injury crisis',
      'coaching change',
      'relegation battle',
      'championship qualifier',
    ],
    contexts: [
      'after stoppage-time winner',
      'despite injury setback',
      'with record crowd watching',
      'in penalty shootout',
      'as fans celebrate',
    ],
    related: ['Health', 'Culture'],
  },
  Technology: {
    actors: ['Startup', 'Chipmaker', 'Social network', 'Cloud provider', 'Smartphone maker', 'Carmaker', 'Game studio', 'Browser maker'],
    verbs: ['launches', 'delays', 'unveils', 'tests', 'scraps', 'expands', 'patches', 'bets on'],
    topics: [
      'AI assistant',
      'privacy update',
      'battery breakthrough',
      'chip shortage',
      'data breach',
      'app store rules',
      'quantum computer',
      'self-driving software',
      'satellite internet',
      'open-source model',
    ],
    contexts: [
      'amid antitrust probe',
      'after security flaw',
      'ahead of developer conference',
      'as users push back',
      'in record time',
    ],
    related: ['Economy', 'Science'],
  },
  Culture: {
    actors: ['Festival', 'Museum', 'Theater', 'Director', 'Novelist', 'Gallery', 'Orchestra', 'Band'],
    verbs: ['premieres', 'celebrates', 'revives', 'announces', 'cancels', 'reimagines', 'honors', 'tours'],
    topics: [
      'film festival lineup',
      'opera season',
      'art exhibition',
      'book prize shortlist',
      'music awards',
      'comeback album',
      'street art',
      'stage musical',
      'poetry festival',
      'documentary series',
    ],
    contexts: [
      'to sold-out crowds',
      'after decade-long hiatus',
      'with surprise guests',
      'despite funding cuts',
      'in historic venue',
    ],
    related: ['World', 'Sports'],
  },
  Science: {
    actors: ['Astronomers', 'Biologists', 'Physicists', 'Geologists', 'Climate scientists', 'Engineers', 'Archaeologists', 'Chemists'],
    verbs: ['discover', 'map', 'detect', 'decode', 'observe', 'simulate', 'uncover', 'measure'],
    topics: [
      'exoplanet atmosphere',
      'ancient genome',
      'deep sea species',
      'gravitational waves',
      'glacier melt',
      'fusion reactor',
      'dinosaur fossil',
      'coral reef recovery',
      'solar storm',
      'particle collider',
    ],
    contexts: [
      'in landmark study',
      'using new telescope',
      'after decade of data',
      'with surprising results',
      'in remote expedition',
    ],
    related: ['Technology', 'Health'],
  },
  Health: {
    actors: ['Hospitals', 'Doctors', 'Nurses', 'Health officials', 'Pharmacies', 'Clinics', 'Insurers', 'Dietitians'],
    verbs: ['warn about', 'prepare for', 'report rise in', 'push for', 'study', 'track', 'fight', 'recommend'],
    topics: [
      'flu season',
      'vaccine rollout',
      'mental health support',
      'sleep habits',
      'heart disease',
      'hospital waiting lists',
      'nutrition guidelines',
      'allergy season',
      'fitness trends',
      'drug shortages',
    ],
    contexts: ['as winter approaches', 'after new guidance', 'amid staff shortages', 'in rural areas', 'before flu peak'],
    related: ['Science', 'Economy'],
  },
  World: {
    actors: ['Diplomats', 'Leaders', 'Envoys', 'Protesters', 'Negotiators', 'Observers', 'Aid agencies', 'Ministers'],
    verbs: ['meet over', 'condemn', 'call for', 'press for', 'monitor', 'gather for', 'respond to', 'reject'],
    topics: [
      'peace talks',
      'climate summit',
      'refugee crisis',
      'ceasefire deal',
      'trade pact',
      'election results',
      'border dispute',
      'humanitarian aid',
      'sanctions package',
      'nuclear deal',
    ],
    contexts: ['in Geneva', 'after days of talks', 'as tensions rise', 'amid global pressure', 'at emergency summit'],
    related: ['Politics', 'Economy'],
  },
};

export const FIRST_NAMES = [
  'Ana', 'Ben', 'Chloe', 'David', 'Elena', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas',
  'Kemi', 'Liam', 'Maya', 'Nikolai', 'Olivia', 'Pedro', 'Quinn', 'Rosa', 'Samir', 'Tara',
  'Umar', 'Vera', 'Wen', 'Ximena', 'Yusuf', 'Zoe', 'Aiko', 'Bruno', 'Carmen', 'Dmitri',
] as const;

export const LAST_NAMES = [
  'Adler', 'Banerjee', 'Castillo', 'Dubois', 'Eriksen', 'Fischer', 'Gallagher', 'Haddad', 'Ivanova', 'Jensen',
  'Kowalski', 'Lindqvist', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quintero', 'Rossi', 'Schmidt', 'Tanaka',
  'Ulrich', 'Varga', 'Whitfield', 'Xu', 'Yilmaz', 'Zimmermann', 'Almeida', 'Brennan', 'Costa', 'Demir',
] as const;
