import TestSupport
import Testing

@testable import MockBackend

@Suite("The document a server without an admin token serves")
struct OpenAdminSecurityTests {
    @Test func requirementsNamingOnlyTheAdminSchemesBecomeOpen() {
        let document = """
            openapi: 3.1.0
            info:
              title: t
              description: |
                Text that quotes security: [{ adminBearer: [] }] stays.
            paths:
              /__admin/a:
                get:
                  security: [{ adminBearer: [] }]
              /__admin/events:
                get:
                  security: [{ adminBearer: [] }, { adminAccessToken: [] }]
              /mixed:
                get:
                  security: [{ adminBearer: [] }, { playerSession: [] }]
              /player:
                get:
                  security: [{ playerSession: [] }]
              /open:
                get:
                  security: []
                  description: |
                    Another description.
            """
        let served = OpenAdminSecurity.apply(to: document).split(separator: "\n", omittingEmptySubsequences: false)
        let original = document.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(served.count == original.count + OpenAdminSecurity.note.count)
        #expect(served.filter { $0.hasSuffix("      security: []") }.count == 3)
        #expect(served.contains("      security: [{ adminBearer: [] }, { playerSession: [] }]"))
        #expect(served.contains("      security: [{ playerSession: [] }]"))
        #expect(served.contains("    Text that quotes security: [{ adminBearer: [] }] stays."))
        // The note opens info.description, once.
        #expect(served[4] == "    " + OpenAdminSecurity.note[0])
        #expect(served.filter { $0.contains("started without `--admin-token`") }.count == 1)
    }

    @Test func aDocumentWithoutAnInfoDescriptionIsOpenedAllTheSame() {
        let served = OpenAdminSecurity.apply(
            to: "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      security: [{ adminBearer: [] }]\n")
        #expect(served == "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      security: []\n")
    }
}
