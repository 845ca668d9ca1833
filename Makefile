# The two commands of the README: `make run` and `make test`. Everything else is a step of those.
.PHONY: run build release web test types

# Build the site and the server, then serve http://127.0.0.1:8080 (SQLite under ./data/).
# The `fast` profile compiles in minutes; `make release` is the fully optimised build (Docker,
# releases and bench/ use it).
run: build
	./target/fast/zayavka serve

build: web
	@echo "== building the server (first time: about 3 minutes; cargo shows its progress)"
	cargo build --profile fast --locked

release: web
	cargo build --release --locked

# The React site, prerendered into web/dist/ (the binary embeds it at compile time).
web: web/node_modules
	@echo "== building the site (web/dist)"
	cd web && npm run build

web/node_modules: web/package-lock.json
	@echo "== installing the site's packages (npm ci)"
	cd web && npm ci --no-audit --no-fund
	touch web/node_modules

e2e/node_modules: e2e/package-lock.json
	cd e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
	touch e2e/node_modules

# Every test: Rust (unit + integration), web unit tests, browser and API-client tests.
test: web e2e/node_modules
	scripts/test-all

# The inbox's TypeScript types (web/src/admin/generated/wire.ts), written anew from the Rust types
# of the API's answers; `make test` fails while the committed file differs (ADR 0034).
types:
	ZAYAVKA_WRITE_TYPES=1 cargo test --profile fast --locked --test integration wire_types::
