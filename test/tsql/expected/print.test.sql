-- scenario 1: {"printerId":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}
insert into "ba_print_jobs" ("kind", "order_folio", "is_reprint", "price", "payment_method", "printed_at", "results") values (@1, @2, @3, @4, @5, @6, @7); select cast(scope_identity() as bigint) as "id";
insert into ba_idempotency (scope, idem_key, fingerprint, op, result, created_at, expires_at) select @1, @2, @3, @4, @5, @6, @7 where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = @8 and idem_key = @9); select @@rowcount as inserted;
update "ba_print_jobs" set "results" = @1 where "id" = @2;
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
