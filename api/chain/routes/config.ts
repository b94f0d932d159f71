import type { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { version } from '../../../package.json'
import { CsvExportConfig, CsvExports } from '../csv/exports'
import { BackendVersion, chainOperation } from '../schemas'

export function configRoutes(router: DocumentedRouter, csv: CsvExports): void {
    router.get('/config/backend-version', chainOperation('config', {
        operationId: 'getBackendVersion',
        summary: 'The version of this API', reads: false,
    }, 'The version', BackendVersion), (_req, res) => {
        res.json({ backend_version: `v${version}` } satisfies z.input<typeof BackendVersion>)
    })

    /** Blockscout's CSV export settings, with what this API adds (docs/chain-api.md#csv-export). */
    router.get('/config/csv-export', chainOperation('config', {
        operationId: 'getCsvExportConfig',
        summary: 'What CSV exports allow: the row cap, the captcha switch, the period and the per-IP budget', reads: false,
    }, 'The settings', CsvExportConfig), (_req, res) => {
        res.json(csv.config())
    })
}
