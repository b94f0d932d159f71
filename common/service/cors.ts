import cors from 'cors'

/**
 * For what is read-only and public: any origin may read it from a browser (a Blockscout frontend
 * on its own host, a docs page reading an OpenAPI document). No credentials are involved.
 */
export const readCors = cors({ origin: '*', methods: ['GET', 'HEAD', 'OPTIONS'], maxAge: 86_400 })
