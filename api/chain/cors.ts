import cors from 'cors'

/** Read-only and public: any origin may call it from a browser (a Blockscout frontend on its own host). */
export const readCors = cors({ origin: '*', methods: ['GET', 'HEAD', 'OPTIONS'], maxAge: 86_400 })
