# The production image. Its build is scripts/release.sh, the same script CI runs and checks.
#   docker build -t dealroom .
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://... -e ADMIN_TOKEN=... dealroom
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN scripts/release.sh /app

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    MANAGEMENT_HOST=0.0.0.0 \
    WEB_HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
# The embedded store (no DATABASE_URL) keeps its files in /data, owned by the service's user.
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
EXPOSE 8080 8081 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["bin/dealroom", "serve"]
