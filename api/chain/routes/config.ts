import { DocumentedRouter } from '../../../common/service/api-doc'
import { version } from '../../../package.json'
import { answer, BackendVersion } from '../schemas'

export function configRoutes(router: DocumentedRouter): void {
    router.get('/config/backend-version', {
        summary: 'The version of this API',
        tags: ['config'],
        responses: { 200: answer.ok('The version', BackendVersion) },
    }, (_req, res) => {
        res.json({ backend_version: `v${version}` })
    })
}
