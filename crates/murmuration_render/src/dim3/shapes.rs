//! The low-poly bodies, made in code: each faces +x with +y up, its length along x, flat-shaded
//! (each face its own vertices, so its own normal).

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;

use crate::look::BodyShape;

/// The body `shape`, `length` long.
pub fn body(shape: BodyShape, length: f32) -> Mesh {
    let (points, faces) = match shape {
        BodyShape::Bird => bird(),
        BodyShape::Fish => fish(),
    };
    let positions: Vec<[f32; 3]> = points.iter().map(|p| (*p * length).to_array()).collect();
    let indices: Vec<u32> = faces.iter().flatten().copied().collect();
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_indices(Indices::U32(indices))
    .with_duplicated_vertices()
    .with_computed_flat_normals()
}

/// A bird one unit long: a ridged body, wings swept back to tips behind the shoulders, and a
/// forked tail.
fn bird() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let points = vec![
        Vec3::new(0.5, 0.0, 0.0),     // 0 beak
        Vec3::new(-0.3, 0.0, 0.0),    // 1 rump
        Vec3::new(0.05, 0.09, 0.0),   // 2 back
        Vec3::new(0.05, -0.07, 0.0),  // 3 belly
        Vec3::new(0.2, 0.0, 0.0),     // 4 shoulder, front of the wings
        Vec3::new(-0.12, 0.0, 0.0),   // 5 back of the wings
        Vec3::new(-0.3, 0.04, 0.7),   // 6 left wing tip
        Vec3::new(-0.3, 0.04, -0.7),  // 7 right wing tip
        Vec3::new(-0.55, 0.0, 0.16),  // 8 tail, left fork
        Vec3::new(-0.45, 0.0, 0.0),   // 9 tail notch
        Vec3::new(-0.55, 0.0, -0.16), // 10 tail, right fork
        Vec3::new(0.05, 0.0, 0.06),   // 11 left flank
        Vec3::new(0.05, 0.0, -0.06),  // 12 right flank
    ];
    let faces = vec![
        // Body: four faces from the beak to the rump round the back, flanks and belly.
        [0, 2, 11],
        [0, 12, 2],
        [0, 11, 3],
        [0, 3, 12],
        [1, 11, 2],
        [1, 2, 12],
        [1, 3, 11],
        [1, 12, 3],
        // Wings.
        [4, 6, 5],
        [4, 5, 7],
        // Tail.
        [1, 8, 9],
        [1, 9, 10],
    ];
    (points, faces)
}

/// A fish one unit long: a slim diamond body and a forked tail fin standing upright.
fn fish() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let points = vec![
        Vec3::new(0.5, 0.0, 0.0),     // 0 snout
        Vec3::new(0.0, 0.17, 0.0),    // 1 back
        Vec3::new(0.0, -0.13, 0.0),   // 2 belly
        Vec3::new(0.0, 0.0, 0.07),    // 3 left side
        Vec3::new(0.0, 0.0, -0.07),   // 4 right side
        Vec3::new(-0.33, 0.0, 0.0),   // 5 tail root
        Vec3::new(-0.52, 0.16, 0.0),  // 6 upper fin
        Vec3::new(-0.45, 0.0, 0.0),   // 7 fin notch
        Vec3::new(-0.52, -0.14, 0.0), // 8 lower fin
        Vec3::new(0.05, 0.24, 0.0),   // 9 dorsal fin tip
        Vec3::new(-0.12, 0.12, 0.0),  // 10 dorsal fin back
    ];
    let faces = vec![
        [0, 1, 3],
        [0, 4, 1],
        [0, 3, 2],
        [0, 2, 4],
        [5, 3, 1],
        [5, 1, 4],
        [5, 2, 3],
        [5, 4, 2],
        [5, 6, 7],
        [5, 7, 8],
        [1, 9, 10],
    ];
    (points, faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both bodies are whole meshes of the length asked for, facing +x.
    #[test]
    fn bodies_face_forward_at_their_length() {
        for shape in [BodyShape::Bird, BodyShape::Fish] {
            let mesh = body(shape, 10.0);
            let Some(positions) = mesh.attribute(Mesh::ATTRIBUTE_POSITION) else {
                panic!("{shape:?} has no positions");
            };
            let points: Vec<Vec3> = positions
                .as_float3()
                .unwrap()
                .iter()
                .map(|&p| Vec3::from_array(p))
                .collect();
            let (min, max) = points.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
            assert!((max.x - 5.0).abs() < 1e-4, "{shape:?}: nose at {}", max.x);
            assert!(min.x < -5.0 && min.x > -6.0, "{shape:?}: tail at {}", min.x);
            assert!(mesh.attribute(Mesh::ATTRIBUTE_NORMAL).is_some());
            assert_eq!(points.len() % 3, 0);
        }
    }
}
