// GraphQL Code Generator: typed documents for the GraphQL documents kept under schema/ (the REST
// facade's fixed queries), from the printed schema. Run by `npm run generate`; output is committed.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['schema/**/*.graphql', '!schema/schema.graphql'],
  generates: {
    'src/documents/': {
      preset: 'client',
      presetConfig: { fragmentMasking: false, gqlTagName: 'graphql' },
      config: {
        useTypeImports: true,
        importExtension: '.js',
        enumsAsTypes: true,
        scalars: { DateTime: 'string', Date: 'string', JSON: 'unknown', ID: 'string' },
        strictScalars: true,
      },
    },
  },
  ignoreNoDocuments: false,
  emitLegacyCommonJSImports: false,
  importExtension: '.js',
};

export default config;
