# The build stage has the dev dependencies (tsc) and the whole source; the image keeps only what
# the services run: production dependencies, the production build, and the files read at runtime.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/lib ./lib
# Contract artifacts (the platform deploys PlatformToken from its artifact; the devnet deploys the rest).
COPY abi/*.json ./abi/
# typeorm-config runs migrations from <project>/db/migrations.
COPY db/migrations ./db/migrations
# The GraphQL server serves the model described here.
COPY schema.graphql ./
# The bridge's swap page, read from the source tree (bridge/http/swap-page.ts).
COPY bridge/http/page ./bridge/http/page/
USER node
