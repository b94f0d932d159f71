import { DocumentedRouter } from '../../../common/service/api-doc'
import { ADDRESS_EXPORTS } from '../csv/address-exports'
import { AddressCsvQuery, CaptchaHeaders, csvOperation, CsvExports } from '../csv/exports'

/**
 * /api/v1: the routes Blockscout keeps there for its frontend, the address CSV exports
 * (`/api/v1/transactions-csv`, `/internal-transactions-csv`, `/token-transfers-csv`, `/logs-csv`),
 * which Blockscout's frontend calls (lib/api/services/general/v1.ts). docs/chain-api.md#csv-export.
 */

const OPERATIONS = {
    'transactions': { operationId: 'exportAddressTransactionsCsv', what: 'transactions' },
    'internal-transactions': { operationId: 'exportAddressInternalTransactionsCsv', what: 'internal transactions' },
    'token-transfers': { operationId: 'exportAddressTokenTransfersCsv', what: 'token transfers' },
    'logs': { operationId: 'exportAddressLogsCsv', what: 'logs' },
} as const

export function v1Routes(router: DocumentedRouter, exports: CsvExports): void {
    for (const kind of ADDRESS_EXPORTS) {
        const { operationId, what } = OPERATIONS[kind]
        router.get(`/${kind}-csv`, csvOperation('addresses', {
            operationId,
            summary: `An address's ${what} in a period, as CSV (Blockscout's columns), newest first`,
            description: 'At most CHAIN_API_CSV_EXPORT_MAX_ROWS rows; a period longer than CHAIN_API_CSV_EXPORT_MAX_PERIOD_DAYS answers 422. ' +
                'Streamed as the rows are read (docs/chain-api.md#csv-export).',
            query: AddressCsvQuery,
            headers: CaptchaHeaders,
            notFound: 'address',
        }, `The ${what} as CSV`), exports.address(kind))
    }
}
