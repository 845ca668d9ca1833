// The CRN collection of bench/inserts.sh: the same four text fields as zayavka's lead, and a public
// create rule (anyone may create, nobody may list, view, update or delete), as in zayavka.
migrate((app) => {
  const c = new Collection({
    type: "base",
    name: "CRN",
    createRule: "",
    fields: [
      { name: "name", type: "text", required: true },
      { name: "phone", type: "text", required: true },
      { name: "confirmation", type: "text", required: true },
      { name: "comment", type: "text" },
    ],
  });
  app.save(c);
}, (app) => {
  app.delete(app.findCollectionByNameOrId("CRN"));
});
