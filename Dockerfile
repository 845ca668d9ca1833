# syntax=docker/dockerfile:1
# zayavka in a container: see docs/deployment.md ("Docker").
#   docker build -t zayavka .
#   docker run -d --name zayavka -p 127.0.0.1:8080:8080 -v zayavka-data:/data \
#     -e ZAYAVKA_CONTACT_PHONE='+380 44 123 45 67' --stop-timeout 30 zayavka
# Needs BuildKit (the default since Docker 23) for the cache mounts.

# 1. The React site, prerendered into web/dist/.
FROM node:20-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

# 2. The server, with web/dist/ embedded at compile time.
FROM rust:1-bookworm AS server
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY migrations ./migrations
COPY --from=web /src/web/dist ./web/dist
# The target folder is a cache kept between builds; touching the crate's roots makes sure the
# embedded site is always the one just built (dependencies stay cached).
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/usr/local/cargo/git/db \
    --mount=type=cache,id=zayavka-target,target=/src/target,sharing=locked \
    touch src/lib.rs src/main.rs \
    && cargo build --release --locked \
    && install -m 0755 target/release/zayavka /usr/local/bin/zayavka \
    && mkdir /data

# 3. Only the binary, on glibc + libgcc, as user nonroot (65532). No shell, so no HEALTHCHECK:
# let the orchestrator probe GET /readyz (ready) and GET /healthz (alive) over HTTP.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=server /usr/local/bin/zayavka /usr/local/bin/zayavka
# The data folder, owned by the user that writes to it (a new named volume inherits this).
COPY --from=server --chown=65532:65532 /data /data
WORKDIR /data
VOLUME /data
ENV ZAYAVKA_LISTEN=0.0.0.0:8080 \
    ZAYAVKA_DATABASE_URL=sqlite:///data/zayavka.db
EXPOSE 8080
USER 65532:65532
# SIGTERM drains requests for up to 10 s and then closes the database: stop with a grace period
# of at least 15 s (docker stop -t 30, stop_grace_period: 30s, terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/zayavka"]
CMD ["serve"]
