import {Entity as Entity_, Column as Column_, PrimaryColumn as PrimaryColumn_, StringColumn as StringColumn_, BooleanColumn as BooleanColumn_, IntColumn as IntColumn_, JSONColumn as JSONColumn_, DateTimeColumn as DateTimeColumn_} from "@subsquid/typeorm-store"

/**
 * Contracts whose source the indexer knows: those deployed from this project's own compiled artifacts.
 */
@Entity_()
export class VerifiedContract {
    constructor(props?: Partial<VerifiedContract>) {
        Object.assign(this, props)
    }

    /**
     * contract address
     */
    @PrimaryColumn_()
    id!: string

    @StringColumn_({nullable: false})
    name!: string

    @StringColumn_({nullable: false})
    sourceName!: string

    @StringColumn_({nullable: false})
    compilerVersion!: string

    @StringColumn_({nullable: false})
    evmVersion!: string

    @BooleanColumn_({nullable: false})
    optimizationEnabled!: boolean

    @IntColumn_({nullable: true})
    optimizationRuns!: number | undefined | null

    /**
     * source path -> source text
     */
    @JSONColumn_({nullable: false})
    sources!: unknown

    @JSONColumn_({nullable: false})
    abi!: unknown

    @StringColumn_({nullable: true})
    constructorArguments!: string | undefined | null

    @DateTimeColumn_({nullable: false})
    verifiedAt!: Date
}
