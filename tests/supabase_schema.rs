//! `supabase/schema.sql` on a real PostgreSQL, as Supabase's `anon` role would meet it: it may
//! insert a lead and nothing else.
//!
//! Not run again on PostgreSQL: it always runs on PostgreSQL (it tests supabase/schema.sql).

use crate::common;

use tokio_postgres::NoTls;

const SCHEMA: &str = include_str!("../supabase/schema.sql");

#[tokio::test]
async fn the_anon_role_may_insert_and_nothing_else() {
    let base = common::postgres_base_url();
    let (admin, connection) = tokio_postgres::connect(&base, NoTls).await.unwrap();
    tokio::spawn(connection);
    // A database of its own: the schema writes to `public`.
    let database = format!("zt_supabase_{}", std::process::id());
    admin.batch_execute(&format!("DROP DATABASE IF EXISTS {database}")).await.unwrap();
    admin.batch_execute(&format!("CREATE DATABASE {database}")).await.unwrap();
    // Supabase's role, cluster-wide; created once.
    admin
        .batch_execute(
            "DO $$ BEGIN CREATE ROLE anon NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        )
        .await
        .unwrap();

    let url = base.rsplit_once('/').map(|(server, _)| format!("{server}/{database}")).unwrap();
    let (db, connection) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(connection);
    db.batch_execute("GRANT USAGE ON SCHEMA public TO anon").await.unwrap();
    db.batch_execute(SCHEMA).await.unwrap();
    db.batch_execute(SCHEMA).await.expect("the schema can be applied twice");

    db.batch_execute("SET ROLE anon").await.unwrap();
    db.execute(
        "INSERT INTO \"CRN\" (name, phone, confirmation, comment) VALUES ('Олена', '+380 67 123 45 67', 'Так', NULL)",
        &[],
    )
    .await
    .expect("anon inserts a lead");
    for refused in [
        "SELECT * FROM \"CRN\"",
        "UPDATE \"CRN\" SET name = 'x'",
        "DELETE FROM \"CRN\"",
        "INSERT INTO \"CRN\" (id, name, phone, confirmation) OVERRIDING SYSTEM VALUE VALUES (99, 'a', '0671234567', 'Так')",
    ] {
        let error = db.batch_execute(refused).await.expect_err(refused);
        assert_eq!(error.code(), Some(&tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE), "{refused}");
    }
    for invalid in [
        "INSERT INTO \"CRN\" (name, phone, confirmation) VALUES ('a', 'дзвоніть', 'Так')",
        "INSERT INTO \"CRN\" (name, phone, confirmation) VALUES ('a', '0671234567', 'yes')",
        "INSERT INTO \"CRN\" (name, phone, confirmation) VALUES ('  ', '0671234567', 'Так')",
    ] {
        let error = db.batch_execute(invalid).await.expect_err(invalid);
        assert_eq!(error.code(), Some(&tokio_postgres::error::SqlState::CHECK_VIOLATION), "{invalid}");
    }
    db.batch_execute("RESET ROLE").await.unwrap();
    let stored: i64 = db.query_one("SELECT count(*) FROM \"CRN\"", &[]).await.unwrap().get(0);
    assert_eq!(stored, 1);

    drop(db);
    admin.batch_execute(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)")).await.unwrap();
}
