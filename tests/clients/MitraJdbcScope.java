// pgjdbc against a Mitra server with logins: SCRAM-SHA-256, the session scope across plain and
// prepared statements (server-side after five executions), reconnects, wrong passwords.
import java.sql.*;
import java.util.*;

public class MitraJdbcScope {
    static String show(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW mitra.analysis")) {
            rs.next();
            return rs.getString(1);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String query = "dominant background in the dimuon signal region";
        try (Connection c = DriverManager.getConnection(url, "alice", "alice's pass")) {
            try (Statement s = c.createStatement()) {
                s.execute("SET mitra.analysis = 'hmumu-run3'");
            }
            if (!"hmumu-run3".equals(show(c))) throw new AssertionError("scope not set");
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT c.analysis_id FROM dense(?, ?) d JOIN chunks c USING (chunk_id)")) {
                ps.setString(1, query);
                ps.setInt(2, 40);
                for (int round = 0; round < 7; round++) {
                    Set<String> seen = new TreeSet<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) seen.add(rs.getString(1));
                    }
                    if (!seen.equals(Set.of("hmumu-run3"))) throw new AssertionError("round " + round + ": " + seen);
                }
            }
            System.out.println("scope kept " + show(c));
        }
        try (Connection c = DriverManager.getConnection(url, "alice", "alice's pass")) {
            if (!"".equals(show(c))) throw new AssertionError("a new connection must start unscoped");
            System.out.println("reconnected unscoped");
        }
        try {
            DriverManager.getConnection(url, "alice", "wrong").close();
            throw new AssertionError("wrong password accepted");
        } catch (SQLException e) {
            System.out.println("wrong password " + e.getSQLState());
            if (!"28P01".equals(e.getSQLState())) throw e;
        }
        System.out.println("JDBC SCOPE OK");
    }
}
