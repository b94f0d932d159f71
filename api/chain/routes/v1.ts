import { DocumentedRouter } from '../../../common/service/api-doc'
import { ADDRESS_EXPORTS } from '../csv/address-exports'
import { addressCsvOperation, CsvExports } from '../csv/exports'

/**
 * /api/v1: the routes Blockscout keeps there for its frontend, the address CSV exports
 * (`/api/v1/transactions-csv`, `/internal-transactions-csv`, `/token-transfers-csv`, `/logs-csv`),
 * where Blockscout's frontend up to v2.0 asks them (lib/api/services/general/v1.ts); later ones ask
 * /api/v2/addresses/{hash}/<kind>/csv (routes/addresses.ts). docs/chain-api.md#csv-export.
 */
export function v1Routes(router: DocumentedRouter, exports: CsvExports): void {
    for (const kind of ADDRESS_EXPORTS) {
        router.get(`/${kind}-csv`, addressCsvOperation(kind, 'query'), exports.address(kind, 'query'))
    }
}
