-- AddForeignKey
ALTER TABLE "hook_test_listens" ADD CONSTRAINT "hook_test_listens_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

