import type { z } from 'zod'
import { DocumentedRouter } from '../../../common/service/api-doc'
import { version } from '../../../package.json'
import { BackendVersion, chainOperation } from '../schemas'

export function configRoutes(router: DocumentedRouter): void {
    router.get('/config/backend-version', chainOperation('config', {
        operationId: 'getBackendVersion',
        summary: 'The version of this API', reads: false,
    }, 'The version', BackendVersion), (_req, res) => {
        res.json({ backend_version: `v${version}` } satisfies z.input<typeof BackendVersion>)
    })
}
